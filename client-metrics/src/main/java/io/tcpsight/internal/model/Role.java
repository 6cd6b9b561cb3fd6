package io.tcpsight.internal.model;

import java.util.Locale;

/** Which end of a Kafka connection this process is. */
public enum Role {
    /** This process opened the connection (producer, consumer, admin, replica fetcher). */
    CLIENT,
    /** This process accepted it on a listener (a broker). */
    BROKER;

    /** Made once: the meters compare it for every connection every round. */
    private final String label = name().toLowerCase(Locale.ROOT);

    /** The lower-case name used in tags and JSON. */
    public String label() {
        return label;
    }
}
