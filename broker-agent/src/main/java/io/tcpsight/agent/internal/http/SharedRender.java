package io.tcpsight.agent.internal.http;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One resource's render, shared: a request while the last render is fresh gets it at once,
 * requests meanwhile wait for one render, and a render that fails in any way (an Error too)
 * answers 500 to those waiting and leaves the next request to render again. The answers are views
 * of the one body, so a thousand clients that never read hold one copy between them. Requests come
 * on the selector thread; the render runs on the bounded renderer pool, and a full pool answers 503.
 */
final class SharedRender {
    /** A render served to requests that arrive while it is this fresh: a flood costs one render. */
    static final long REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private final String resource;
    private final Supplier<Page> render;
    private final Executor renderers;
    private final Consumer<Runnable> onSelector;
    private final EndpointWarnings warnings;
    // Selector thread only:
    private Page page;
    private long renderedAt;
    private boolean rendering;
    private final List<Reply> waiting = new ArrayList<>();
    private final List<Function<Page, Response>> answers = new ArrayList<>();

    SharedRender(
            String resource,
            Supplier<Page> render,
            Executor renderers,
            Consumer<Runnable> onSelector,
            EndpointWarnings warnings) {
        this.resource = resource;
        this.render = render;
        this.renderers = renderers;
        this.onSelector = onSelector;
        this.warnings = warnings;
    }

    /** On the selector thread: {@code answer} picks what of the page this request gets. */
    void request(Reply reply, Function<Page, Response> answer) {
        if (page != null && System.nanoTime() - renderedAt < REUSE_NANOS) {
            reply.send(answer.apply(page));
            return;
        }
        waiting.add(reply);
        answers.add(answer);
        if (rendering) {
            return;
        }
        rendering = true;
        try {
            renderers.execute(() -> {
                Page rendered;
                Throwable failed = null;
                try {
                    rendered = render.get();
                } catch (Throwable failure) {
                    rendered = Page.failed(failure);
                    failed = failure;
                }
                Page done = rendered;
                Throwable failure = failed;
                onSelector.accept(() -> {
                    if (failure != null) {
                        warnings.once(
                                resource + " " + failure.getClass().getSimpleName(),
                                "tcpsight agent: " + resource + " could not be rendered (" + failure
                                        + "); the request got a 500 and the next one renders again");
                    }
                    finished(done);
                });
            });
        } catch (RejectedExecutionException busy) {
            finished(Page.of(Response.BUSY));
        }
    }

    private void finished(Page rendered) {
        rendering = false;
        boolean ok = rendered.whole.status() == 200;
        if (ok) {
            page = rendered;
            renderedAt = System.nanoTime();
        }
        for (int i = 0; i < waiting.size(); i++) {
            waiting.get(i).send(ok ? answers.get(i).apply(rendered) : rendered.whole);
        }
        waiting.clear();
        answers.clear();
    }
}
