package io.tcpsight.config;

/** A setting with a bad value: names the key, the value and what is allowed. */
public final class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String key;

    public InvalidSettingException(String key, Object value, String allowed) {
        super(key + "=" + value + " is not valid: " + allowed);
        this.key = key;
    }

    public String key() {
        return key;
    }
}
