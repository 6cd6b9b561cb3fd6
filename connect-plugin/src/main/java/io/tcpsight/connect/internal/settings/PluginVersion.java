package io.tcpsight.connect.internal.settings;

/** The plugin's version, from its jar manifest. */
public final class PluginVersion {
    private PluginVersion() {}

    public static String fromManifest() {
        String version = PluginVersion.class.getPackage().getImplementationVersion();
        return version == null ? "unknown" : version;
    }
}
