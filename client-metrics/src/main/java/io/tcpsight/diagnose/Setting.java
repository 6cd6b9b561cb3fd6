package io.tcpsight.diagnose;

/**
 * One change a remedy asks for: where it goes (scope), the key and the value.
 * Scopes: client, broker, connect-worker, connector, sysctl, kernel, tcpsight.
 */
public final class Setting {
    private final String scope;
    private final String key;
    private final String value;

    public Setting(String scope, String key, String value) {
        this.scope = scope;
        this.key = key;
        this.value = value;
    }

    public static Setting sysctl(String key, Object value) {
        return new Setting("sysctl", key, String.valueOf(value));
    }

    public String scope() {
        return scope;
    }

    public String key() {
        return key;
    }

    public String value() {
        return value;
    }

    /** "receive.buffer.bytes=-1 (client)". */
    public String describe() {
        return key + "=" + value + " (" + scope + ")";
    }
}
