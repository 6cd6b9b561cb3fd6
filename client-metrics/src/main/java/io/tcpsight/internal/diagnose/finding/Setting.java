package io.tcpsight.internal.diagnose.finding;

import java.util.Optional;

/**
 * One change a remedy asks for: where it goes (scope), the key and the value. Scopes: client,
 * broker, connect-worker, connector, sysctl, kernel, tcpsight. A client setting also names the
 * client library whose key it is; where that library is not known, the key is absent and
 * {@link #lookFor()} says in words which setting to look for.
 */
public final class Setting {
    /** A buffer size that leaves the buffer to the kernel's autotuning. */
    public static final String AUTOTUNE = "-1";

    private final String scope;
    private final String key;
    private final String value;
    private final String library;
    private final String lookFor;
    private final String note;

    public Setting(String scope, String key, String value) {
        this(scope, key, value, null, null, null);
    }

    private Setting(String scope, String key, String value, String library, String lookFor, String note) {
        this.scope = scope;
        this.key = key;
        this.value = value;
        this.library = library;
        this.lookFor = lookFor;
        this.note = note;
    }

    public static Setting sysctl(String key, Object value) {
        return new Setting("sysctl", key, String.valueOf(value));
    }

    /** A client setting in the key of the given library ("java", "librdkafka"). */
    public static Setting client(String library, String key, String value) {
        return new Setting("client", key, value, library, null, null);
    }

    /** A client setting of a library this tool does not know: what to look for and what it should be, in words. */
    public static Setting unnamedClient(String lookFor, String value) {
        return new Setting("client", null, value, "unknown", lookFor, null);
    }

    /** This setting, noted as the library's default when it is one (the explicit setting can go). */
    public Setting notedWhenDefault(String libraryDefault, String whose) {
        return value().equals(libraryDefault) ? withNote(whose + " default: remove the explicit setting") : this;
    }

    /** This setting with a remark, such as that the value is already the library's default. */
    public Setting withNote(String text) {
        return new Setting(scope, key, value, library, lookFor, text);
    }

    public String scope() {
        return scope;
    }

    /** Empty when the client library is unknown; then {@link #lookFor()} describes the setting. */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    public String value() {
        return value;
    }

    /** For client settings: the library the key belongs to ("java", "librdkafka", "unknown"); else empty. */
    public Optional<String> library() {
        return Optional.ofNullable(library);
    }

    /** The setting described in words, when its key is unknown; else empty. */
    public Optional<String> lookFor() {
        return Optional.ofNullable(lookFor);
    }

    /** A remark, such as "librdkafka's default", if there is one. */
    public Optional<String> note() {
        return Optional.ofNullable(note);
    }

    /** "receive.buffer.bytes=-1 (client)", or "the client's ... -> value (client)" when the key is unknown. */
    public String describe() {
        String change = key != null ? key + "=" + value : lookFor + ": " + value;
        String where = library != null && !"java".equals(library) ? scope + ", " + library : scope;
        return change + " (" + where + (note != null ? "; " + note : "") + ")";
    }
}
