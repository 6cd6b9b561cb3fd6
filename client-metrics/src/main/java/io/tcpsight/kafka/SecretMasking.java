package io.tcpsight.kafka;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Masks every value whose key could hold a secret, before anything is logged or shown. */
public final class SecretMasking {
    public static final String MASK = "[hidden]";
    private static final String[] SECRET_WORDS = {
        "password", "secret", "sasl.jaas.config", "ssl.key", "token", "credentials"
    };

    private SecretMasking() {}

    public static boolean isSecret(String key) {
        String lower = key.toLowerCase(Locale.ROOT);
        for (String word : SECRET_WORDS) {
            if (lower.contains(word)) {
                return true;
            }
        }
        return false;
    }

    /** A sorted copy with secret values replaced. */
    public static Map<String, String> mask(Map<String, ?> config) {
        Map<String, String> masked = new TreeMap<>();
        config.forEach((key, value) -> masked.put(key, isSecret(key) ? MASK : String.valueOf(value)));
        return masked;
    }
}
