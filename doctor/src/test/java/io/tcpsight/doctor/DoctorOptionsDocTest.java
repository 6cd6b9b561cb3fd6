package io.tcpsight.doctor;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** docs/configuration.md and docs/doctor.md list every option the doctor accepts. */
class DoctorOptionsDocTest {
    @Test
    void everyVisibleOptionIsDocumented() throws Exception {
        String configuration = Files.readString(Path.of("../docs/configuration.md"));
        String doctor = Files.readString(Path.of("../docs/doctor.md"));
        CommandLine cli = new CommandLine(new DoctorCommand(System.out, System.err));
        int checked = 0;
        for (OptionSpec option : cli.getCommandSpec().options()) {
            String name = option.longestName();
            if (option.hidden() || option.usageHelp() || option.versionHelp()) {
                continue;
            }
            checked++;
            assertTrue(configuration.contains("| `" + name + "` |"), name + " in docs/configuration.md");
            assertTrue(doctor.contains("`" + name), name + " in docs/doctor.md");
        }
        assertTrue(checked >= 7, "options checked: " + checked);
    }
}
