package io.tcpsight.connect;

/** The plugin's version, from its jar manifest. */
final class Versions {
    private Versions() {}

    static String plugin() {
        String version = Versions.class.getPackage().getImplementationVersion();
        return version == null ? "unknown" : version;
    }
}
