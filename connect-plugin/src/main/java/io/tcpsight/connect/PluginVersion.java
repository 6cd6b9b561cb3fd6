package io.tcpsight.connect;

/** The plugin's version, from its jar manifest. */
final class PluginVersion {
    private PluginVersion() {}

    static String fromManifest() {
        String version = PluginVersion.class.getPackage().getImplementationVersion();
        return version == null ? "unknown" : version;
    }
}
