package io.tcpsight.doctor;

import io.tcpsight.doctor.fleet.FleetCommand;
import java.io.PrintStream;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The `tcpsight` command line. */
@Command(
        name = "tcpsight",
        mixinStandardHelpOptions = true,
        versionProvider = TcpsightCli.Version.class,
        description = "Makes the TCP layer under Apache Kafka visible and fixes what it finds.",
        subcommands = {CommandLine.HelpCommand.class})
public final class TcpsightCli {
    private TcpsightCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command line; returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cli = new CommandLine(new TcpsightCli());
        cli.addSubcommand("doctor", new DoctorCommand(out, err));
        cli.addSubcommand("attach", new AttachCommand(out, err));
        cli.addSubcommand("fleet", new FleetCommand(out, err));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setExecutionExceptionHandler((exception, commandLine, parseResult) -> {
            if (exception instanceof IllegalArgumentException) {
                commandLine.getErr().println(exception.getMessage());
                return ExitCodes.USAGE;
            }
            commandLine.getErr().println("tcpsight " + commandLine.getCommandName() + " failed: " + exception);
            return ExitCodes.FAILED;
        });
        return cli.execute(args);
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = TcpsightCli.class.getPackage().getImplementationVersion();
            return new String[] {"tcpsight " + (version == null ? "(development build)" : version)};
        }
    }
}
