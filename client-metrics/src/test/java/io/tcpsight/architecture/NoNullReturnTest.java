package io.tcpsight.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * "Unknown is empty" (docs/conventions.md): no public instance method of a public class may
 * return null, through a literal, a ternary's branch, a local or a field that may hold null
 * ({@link NullReturns}); a value that may be unknown is an Optional.
 */
class NoNullReturnTest {
    @Test
    void noPublicInstanceMethodMayReturnNull() throws IOException {
        assertEquals(
                List.of(),
                NullReturns.in(Paths.get("target/classes/io/tcpsight")),
                "public methods that may return null; return an Optional instead");
    }

    @Test
    void theScanSeesEachWayANullIsReturned() throws IOException {
        String sample = Sample.class.getName().replace('$', '.') + ".";
        String name = Sample.class.getName().replace('.', '/') + ".class";
        try (InputStream in = NoNullReturnTest.class.getClassLoader().getResourceAsStream(name)) {
            assertEquals(
                    List.of(
                            sample + "aFieldThatIsSetNull",
                            sample + "aFieldThatStartsNull",
                            sample + "aLiteral",
                            sample + "aLocal",
                            sample + "aMapsGet",
                            sample + "aTernary",
                            sample + "anOrElseNull"),
                    NullReturns.in(in));
        }
    }

    /** Seven public methods that may return null, and seven the scan passes. */
    public static final class Sample {
        private final String named;
        private String later;
        private String cleared = "set";

        public Sample(String named) {
            this.named = named;
        }

        public String aLiteral() {
            return null;
        }

        public String aTernary(boolean known) {
            return known ? named : null;
        }

        public String aLocal(boolean known) {
            String value = null;
            if (known) {
                value = named;
            }
            return value;
        }

        public String aFieldThatStartsNull() {
            return later;
        }

        public String aFieldThatIsSetNull() {
            return cleared;
        }

        public void clear() {
            cleared = null;
        }

        public String aFinalField() {
            return named;
        }

        public String aValue() {
            return "";
        }

        public String anArgument(String given) {
            return given;
        }

        public Object aCastOfAField() {
            return (Object) named;
        }

        public String aMapsGet(Map<String, String> values) {
            return values.get(named);
        }

        public String anOrElseNull(Optional<String> value) {
            return value.orElse(null);
        }

        public String anOrElseOfAValue(Optional<String> value) {
            return value.orElse("");
        }

        public String aMapsGetCheckedInALocal(Map<String, String> values) {
            String value = values.get(named);
            return value == null ? "" : value;
        }

        public String aFieldCheckedInALocal() {
            String value = later;
            return value != null ? value : "";
        }
    }
}
