package io.tcpsight.internal.model;

/**
 * Text fit for one log line. A client.id, a connector name or a setting's value comes from
 * outside; a CR or LF in it would start a forged line of its own, so control characters are
 * written as escapes.
 */
public final class LogText {
    private LogText() {}

    /** {@code text} with CR, LF, tab and every other control character escaped ({@code \r}, {@code \n}, {@code \t}, {@code \u001b}). */
    public static String oneLine(String text) {
        if (text == null) {
            return "null";
        }
        StringBuilder line = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
            if (control && line == null) {
                line = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (line != null) {
                if (!control) {
                    line.append(c);
                } else if (c == '\n') {
                    line.append("\\n");
                } else if (c == '\r') {
                    line.append("\\r");
                } else if (c == '\t') {
                    line.append("\\t");
                } else {
                    line.append(String.format("\\u%04x", (int) c));
                }
            }
        }
        return line == null ? text : line.toString();
    }

    /** Each argument made {@link #oneLine}, for SLF4J's {@code {}} placeholders. */
    public static Object[] oneLine(Object... arguments) {
        Object[] safe = new Object[arguments.length];
        for (int i = 0; i < arguments.length; i++) {
            safe[i] = arguments[i] instanceof Throwable ? arguments[i] : oneLine(String.valueOf(arguments[i]));
        }
        return safe;
    }
}
