package io.tcpsight.internal.host;

/** A /proc file whose content does not have the expected form; says where and why. */
public final class MalformedProcFileException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public MalformedProcFileException(String source, int line, String problem) {
        super(source + " line " + line + ": " + problem);
    }
}
