package io.tcpsight.internal.config;

/** A setting with a bad value: names the key, the value and what is allowed. */
public final class InvalidSettingException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String key;

    public InvalidSettingException(String key, Object value, String allowed) {
        // the value of a key that may hold a secret is never repeated, not even in an error
        super(printable(key) + "="
                + (SecretMasking.isSecret(String.valueOf(key)) ? SecretMasking.MASK : printable(value))
                + " is not valid: " + allowed);
        this.key = key;
    }

    /** Control characters as '?': a value may come from a connector config that anyone with REST access wrote. */
    private static String printable(Object text) {
        return String.valueOf(text).replaceAll("\\p{Cntrl}", "?");
    }

    public String key() {
        return key;
    }
}
