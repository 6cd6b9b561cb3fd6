package io.tcpsight.doctor;

/** The doctor's exit codes: what scripts and CI steps rely on. */
final class ExitCodes {
    /** No finding, or info findings only. */
    static final int HEALTHY = 0;
    /** At least one warn or critical finding. */
    static final int FINDINGS = 1;
    /** Bad arguments or configuration: nothing was diagnosed. */
    static final int USAGE = 2;
    /** The doctor itself failed (e.g. the embedded broker did not start). */
    static final int FAILED = 3;

    private ExitCodes() {}
}
