package io.tcpsight.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The source check sees a tie made of an inlined constant, and none made of comments or strings. */
class FileTiesTest {
    @Test
    void aStaticImportOfAConstantAndAUseBackAreATie(@TempDir Path root) throws Exception {
        Path pkg = Files.createDirectories(root.resolve("io/tcpsight/demo"));
        Files.writeString(
                pkg.resolve("Points.java"),
                "package io.tcpsight.demo;\nimport static "
                        + "io.tcpsight.demo.Transformer.OWNER;\n"
                        + "final class Points { static final String ALL = OWNER; }\n");
        Files.writeString(
                pkg.resolve("Transformer.java"),
                "package io.tcpsight.demo;\nfinal class Transformer {\n"
                        + "  static final String OWNER = \"x\";\n  Object all = Points.ALL;\n}\n");
        Files.writeString(
                pkg.resolve("Notes.java"),
                "package io.tcpsight.demo;\n/** See {@link Points}. */\nfinal class Notes {\n"
                        + "  // Points again\n  String name = \"Points\";\n}\n");
        Files.writeString(
                pkg.resolve("Reader.java"),
                "package io.tcpsight.demo;\nfinal class Reader { Object notes = new Notes(); }\n");
        assertEquals(Set.of("demo.Points <-> demo.Transformer"), FileTies.twoWayInSources(root));
    }
}
