package io.tcpsight.agent.internal.http;

/**
 * A render: the whole answer, and for a JSON array the end of each element, so that a request
 * for the first N is a view of the same bytes.
 */
final class Page {
    private static final byte[] CLOSE = {']'};
    final Response whole;
    private final int[] ends;

    Page(Response whole, int[] ends) {
        this.whole = whole;
        this.ends = ends;
    }

    static Page of(Response whole) {
        return new Page(whole, null);
    }

    static Page failed(Throwable failure) {
        return of(Response.text(
                500, "tcpsight could not answer: " + failure.getClass().getSimpleName() + "\n"));
    }

    Response first(int count) {
        if (ends == null || count >= ends.length) {
            return whole;
        }
        int length = count == 0 ? 1 : ends[count - 1];
        return whole.firstBytes(length, CLOSE);
    }
}
