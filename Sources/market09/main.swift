import Server
import Foundation

exit(await CommandLineInterface.main(arguments: CommandLine.arguments, environment: ProcessInfo.processInfo.environment))
