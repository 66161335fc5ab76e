// swift-tools-version:6.0
import PackageDescription

/// Compiler settings every Swift target shares: Swift 6 language mode comes from the tools
/// version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]
/// The driver's generic row decoding and `SQL` interpolation are called per column and per
/// value from Persistence: across a module boundary they ran unspecialised, and moving the
/// driver into its own module cost a feed page 200 -> 262 us of server CPU and the Top 10
/// 65 -> 88 us (bench/ab). Cross-module optimisation lets release builds specialise them
/// again.
let driverSettings: [SwiftSetting] = swiftSettings + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]

let package = Package(
    name: "Market09Server",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "market09", targets: ["market09"]),
        .library(name: "Market09Client", targets: ["Market09Client"]),
    ],
    targets: [
        // C libraries from Debian, each imported by exactly one Swift target.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),

        // Fast text forms of dates and UUIDs (no Calendar, no snprintf), shared by Domain and
        // the driver. Foundation only, no I/O.
        .target(name: "Codecs", swiftSettings: driverSettings),
        // Entities, repository protocols, use cases. Foundation and Codecs only: no I/O.
        .target(name: "Domain", dependencies: ["Codecs"], swiftSettings: swiftSettings),
        // Threads for blocking work: bounded worker pools, one-off blocking calls, child processes.
        .target(name: "Workers", swiftSettings: swiftSettings),
        // Tokens, hashes and signatures (OpenSSL): access and refresh tokens, passwords,
        // ID tokens and their keys.
        .target(name: "Cryptography", dependencies: ["Domain", "Workers", "COpenSSL"], swiftSettings: swiftSettings),
        // The PostgreSQL driver, knowing nothing of the product: libpq connections, the pool
        // and its threads, statements with their values bound where they are written, wire
        // values and errors. The only target that imports CLibPQ (a test reads the imports).
        .target(name: "PostgresDriver", dependencies: ["CLibPQ", "Codecs"], swiftSettings: driverSettings),
        // Everything stored, on the driver: repositories, migrations, read replicas, the
        // embedded cluster and its backups, the media library on disk, seeders.
        .target(name: "Persistence", dependencies: ["Codecs", "Domain", "Workers", "Cryptography", "PostgresDriver"], swiftSettings: swiftSettings),
        // Outbound services the product calls over HTTP: the Instagram profile lookup.
        .target(name: "Integrations", dependencies: ["Domain"], swiftSettings: swiftSettings),
        // The HTTP transport, knowing nothing of the product: the libmicrohttpd engine,
        // requests and responses, routing, middleware, CORS, ETag, gzip (zlib), the JSON
        // writer, the logger and metrics. A test reads its imports.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib"], swiftSettings: swiftSettings),
        // The product's API on the transport: controllers, wire shapes, error mapping, auth.
        .target(name: "App", dependencies: ["Codecs", "Domain", "Workers", "Cryptography", "PostgresDriver", "Persistence", "HTTPServer"], swiftSettings: swiftSettings),
        // The composition root: configuration, the CLI commands, Persistence's implementations
        // wired into App, and serve's lifecycle.
        .target(name: "Server", dependencies: ["Codecs", "Domain", "Workers", "Cryptography", "PostgresDriver", "Persistence", "Integrations", "HTTPServer", "App"], swiftSettings: swiftSettings),
        // Thin entry point: parses the subcommand and hands over to Server.
        .executableTarget(name: "market09", dependencies: ["Server"], swiftSettings: swiftSettings),

        // The Swift client of the API (Foundation and FoundationNetworking only): token
        // storage, refresh with single flight, and the app's launch-time auth check.
        .target(name: "Market09Client", swiftSettings: swiftSettings),

        // In-memory ports and a settable clock for Domain's unit tests: no I/O.
        .target(name: "Fakes", dependencies: ["Domain"], swiftSettings: swiftSettings),
        // The transport's test helpers: a raw HTTP client, captured logs.
        .target(name: "HTTPTestSupport", dependencies: ["HTTPServer", "Workers"], swiftSettings: swiftSettings),
        // Throwaway PostgreSQL databases (a test cluster's, migrated from a template).
        .target(name: "DatabaseTestSupport", dependencies: ["HTTPTestSupport", "Workers", "PostgresDriver", "Persistence"], swiftSettings: swiftSettings),
        // The application in-process (and the helpers above, re-exported).
        .target(name: "TestSupport", dependencies: ["HTTPTestSupport", "DatabaseTestSupport", "Domain", "Workers", "Cryptography", "PostgresDriver", "Persistence", "HTTPServer", "App", "Server", "Fakes"],
                swiftSettings: swiftSettings),
        // Processes: the built market09, PgBouncer, throwaway clusters, external commands.
        .target(name: "ProcessSupport", dependencies: ["PostgresDriver", "Persistence", "Workers", "TestSupport"], swiftSettings: swiftSettings),

        // Test targets by what they need, run by scripts/test in this order: nothing (Domain
        // against in-memory ports; the transport's router), then one PostgreSQL (the
        // database-backed tests), then processes and topologies.
        .testTarget(name: "DomainTests", dependencies: ["Codecs", "Domain", "Fakes"], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "HTTPTestSupport", "Workers"], swiftSettings: swiftSettings),
        .testTarget(name: "PostgresDriverTests", dependencies: ["PostgresDriver"], swiftSettings: swiftSettings),
        // The product's own code that needs no I/O: parsers, configuration, renderers, keys,
        // and the routes over in-memory stores (AppOverFakes).
        .testTarget(name: "UnitTests", dependencies: ["Codecs", "Domain", "Fakes", "Workers", "Cryptography", "PostgresDriver", "Persistence", "HTTPServer",
                                                       "HTTPTestSupport", "App", "Server"],
                    swiftSettings: swiftSettings),
        .testTarget(name: "PersistenceTests", dependencies: ["Workers", "Cryptography", "PostgresDriver", "Persistence", "DatabaseTestSupport", "Fakes"], swiftSettings: swiftSettings),
        .testTarget(name: "AppTests", dependencies: ["Codecs", "Workers", "Cryptography", "PostgresDriver", "Persistence", "HTTPServer", "App", "Server", "TestSupport", "Fakes", "CZlib"],
                    swiftSettings: swiftSettings),
        // The 09Market app's own response types, declared apart from the server's code,
        // decoding every answer of the Supabase-compatible surface.
        .testTarget(name: "AppDecodingTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "Market09ClientTests", dependencies: ["Market09Client", "HTTPServer", "App", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ProcessTests", dependencies: ["Workers", "Cryptography", "PostgresDriver", "Persistence", "Integrations", "HTTPServer", "App", "Server", "TestSupport",
                                                         "ProcessSupport", "Fakes"], swiftSettings: swiftSettings),
    ]
)
