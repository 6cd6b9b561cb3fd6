package io.tcpsight.doctor.fleet;

import java.util.List;
import java.util.Optional;

/** What one source answered: its findings, or why there are none from it (never both). */
record FleetAnswer(FleetSource source, List<FleetFinding> findings, Optional<String> failure) {
    static FleetAnswer answered(FleetSource source, List<FleetFinding> findings) {
        return new FleetAnswer(source, List.copyOf(findings), Optional.empty());
    }

    static FleetAnswer failed(FleetSource source, String reason) {
        return new FleetAnswer(source, List.of(), Optional.of(reason));
    }

    boolean answered() {
        return failure.isEmpty();
    }
}
