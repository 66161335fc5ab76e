@testable import App
import HTTPServer
@testable import Server
import Testing

@Suite struct ConfigurationTests {
    @Test func defaultsNeedNoEnvironment() throws {
        let configuration = try Configuration.fromEnvironment([:])
        #expect(configuration.databaseURL == nil)
        #expect(configuration.http.port == 8080)
        #expect(configuration.http.host == "127.0.0.1")
        #expect(configuration.http.maxBodyBytes == 1 << 20)
        #expect(configuration.poolSize == 4)
        #expect(configuration.migrateOnStart)
        #expect(configuration.corsAllowedOrigins.isEmpty)
    }

    @Test func everyVariableIsRead() throws {
        let configuration = try Configuration.fromEnvironment([
            "DATABASE_URL": "postgres://u@db:5432/market09", "HOST": "0.0.0.0", "PORT": "9000",
            "HTTP_THREADS": "3", "DATABASE_POOL_SIZE": "8", "MAX_BODY_BYTES": "2048", "MAX_HEADER_BYTES": "4096",
            "MAX_URL_BYTES": "1024", "IDLE_TIMEOUT_SECONDS": "5", "MAX_CONNECTIONS": "10", "SHUTDOWN_GRACE_SECONDS": "3",
            "CORS_ALLOWED_ORIGINS": "https://a.example, https://b.example", "MIGRATE_ON_START": "false",
            "LOG_LEVEL": "warning", "JWT_SECRET": String(repeating: "k", count: 32), "MARKET09_DATA_DIR": "/srv/m09",
        ])
        #expect(configuration.databaseURL == "postgres://u@db:5432/market09")
        #expect(configuration.http.host == "0.0.0.0")
        #expect(configuration.http.port == 9000)
        #expect(configuration.http.threads == 3)
        #expect(configuration.poolSize == 8)
        #expect(configuration.http.maxBodyBytes == 2048)
        #expect(configuration.http.maxHeaderBytes == 4096)
        #expect(configuration.http.maxURLBytes == 1024)
        #expect(configuration.http.idleTimeoutSeconds == 5)
        #expect(configuration.http.maxConnections == 10)
        #expect(configuration.shutdownGraceSeconds == 3)
        #expect(configuration.corsAllowedOrigins == ["https://a.example", "https://b.example"])
        #expect(!configuration.migrateOnStart)
        #expect(configuration.logLevel == .warning)
        #expect(configuration.dataDirectory == "/srv/m09")
    }

    @Test func replicasTakeTheirOwnStatementModeOrThePrimarys() throws {
        let behindPgBouncer = try Configuration.fromEnvironment(["DATABASE_STATEMENTS": "unnamed", "DATABASE_READ_STATEMENTS": "prepared",
                                                                 "DATABASE_READ_URLS": "postgres://r1/m postgres://r2/m"])
        #expect(behindPgBouncer.statementMode == .unnamed)
        #expect(behindPgBouncer.readStatementMode == .prepared)
        #expect(behindPgBouncer.readURLs == ["postgres://r1/m", "postgres://r2/m"])
        let inherited = try Configuration.fromEnvironment(["DATABASE_STATEMENTS": "unnamed"])
        #expect(inherited.readStatementMode == nil)
    }

    @Test(arguments: [
        ("DATABASE_READ_STATEMENTS", "named", "invalid DATABASE_READ_STATEMENTS: expected prepared or unnamed"),
        ("PORT", "http", "invalid PORT: 'http' is not an integer in 0...65535"),
        ("PORT", "70000", "invalid PORT: '70000' is not an integer in 0...65535"),
        ("HOST", "example.com", "invalid HOST: expected an IPv4 or IPv6 address"),
        ("DATABASE_POOL_SIZE", "0", "invalid DATABASE_POOL_SIZE: '0' is not an integer in 1...100"),
        ("LOG_LEVEL", "loud", "invalid LOG_LEVEL: 'loud' is not debug, info, warning or error"),
        ("MIGRATE_ON_START", "maybe", "invalid MIGRATE_ON_START: 'maybe' is not true or false"),
        ("JWT_SECRET", "short", "invalid JWT_SECRET: must be at least 32 bytes"),
        ("DATABASE_URL", "mysql://x", "invalid DATABASE_URL: expected a postgres:// URL"),
    ])
    func invalidValuesNameTheVariable(name: String, value: String, message: String) {
        #expect(throws: (any Error).self) { try Configuration.fromEnvironment([name: value]) }
        do {
            _ = try Configuration.fromEnvironment([name: value])
        } catch {
            #expect(String(describing: error) == message)
        }
    }

    @Test func everyVariableIsDocumentedInHelp() {
        for variable in Configuration.variables {
            #expect(CommandLineInterface.help.contains(variable.name))
            #expect(ServeCommand.help.contains(variable.name))
        }
    }
}
