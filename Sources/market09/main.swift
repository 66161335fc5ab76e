import Foundation
import Server

// libpq sends PGOPTIONS as start-up options whenever a connection names none of its own.
// The server's connections name their own (so PGOPTIONS never applied) or, through
// PgBouncer, none at all, and PgBouncer refuses a connection that carries them
// ("unsupported startup parameter: options"): an operator's PGOPTIONS, exported for psql,
// stopped the server from starting. Removed here, before any connection.
unsetenv("PGOPTIONS")

exit(await CommandLineInterface.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
