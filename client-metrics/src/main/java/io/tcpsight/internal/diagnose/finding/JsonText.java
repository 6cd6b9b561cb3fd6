package io.tcpsight.internal.diagnose.finding;

import java.math.BigDecimal;
import java.math.MathContext;

/** JSON text written by hand (the core has no JSON library): strings escaped, numbers to 4 significant digits. */
public final class JsonText {
    private JsonText() {}

    public static void value(StringBuilder json, Object value) {
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number) || Double.isInfinite(number)) {
                json.append("null");
            } else {
                json.append(fourDigits(number));
            }
        } else if (value instanceof Number || value instanceof Boolean) {
            json.append(value);
        } else if (value == null) {
            json.append("null");
        } else {
            string(json, value.toString());
        }
    }

    public static void string(StringBuilder json, String text) {
        json.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"':
                    json.append("\\\"");
                    break;
                case '\\':
                    json.append("\\\\");
                    break;
                case '\n':
                    json.append("\\n");
                    break;
                case '\r':
                    json.append("\\r");
                    break;
                case '\t':
                    json.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        json.append(String.format("\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
            }
        }
        json.append('"');
    }

    /** A number rounded to 4 significant digits, without an exponent. */
    private static String fourDigits(double value) {
        return new BigDecimal(value)
                .round(new MathContext(4))
                .stripTrailingZeros()
                .toPlainString();
    }
}
