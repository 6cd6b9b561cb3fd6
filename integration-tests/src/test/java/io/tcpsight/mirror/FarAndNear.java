package io.tcpsight.mirror;

import io.tcpsight.lab.KafkaBroker;
import io.tcpsight.lab.KernelLab;
import io.tcpsight.lab.KernelLabExtension;
import io.tcpsight.lab.LabTopics;
import io.tcpsight.lab.Link;
import io.tcpsight.lab.Together;
import java.time.Duration;
import java.util.List;

/**
 * Where the MM2 detection tests start: a far cluster across a 100 ms, 200 Mbit/s line with the
 * topic orders (one partition, records of 1,000 bytes), and a near cluster in the client
 * namespace, beside the worker or MirrorMaker that replicates between them.
 */
record FarAndNear(KernelLab lab, KafkaBroker far, KafkaBroker near) {
    static FarAndNear start(KernelLabExtension extension, int records) throws Exception {
        KernelLab lab = extension.start(KernelLab.builder()
                .link(Link.rtt(Duration.ofMillis(100)).rateMbit(200))
                .clientInNamespace());
        // the detection tests claim names, keys and the RTT the kernel gives, no rate (LabJvm.SHORT_LIVED)
        List<KafkaBroker> both = Together.start(List.of(
                () -> KafkaBroker.inLab(lab).shortLivedJvm().start(),
                () -> KafkaBroker.inLab(lab).onClientSide().shortLivedJvm().start()));
        KafkaBroker far = both.get(0);
        KafkaBroker near = both.get(1);
        lab.takeIdleLine(); // before the records cross: the bounds of every RTT the test checks
        LabTopics.create(far, "orders", 1);
        LabTopics.fill(far, "orders", records, 1_000);
        return new FarAndNear(lab, far, near);
    }
}
