package io.tcpsight.testing;

/**
 * Whether this is CI's run: {@code CI=true} (any case), which {@code .ci/run} exports itself. The only
 * place a test reads it (CiRunTest checks every module's test sources). In CI a test that cannot run
 * here fails: a skipped proof is no proof ({@link NoSkipsInCi}, {@link SkipsFailCiRun}).
 */
public final class CiRun {
    private CiRun() {}

    public static boolean inCi() {
        return "true".equalsIgnoreCase(System.getenv("CI"));
    }
}
