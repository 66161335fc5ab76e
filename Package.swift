// swift-tools-version:6.0
import PackageDescription

/// Compiler settings every Swift target shares: Swift 6 language mode comes from the tools
/// version; `ExistentialAny` makes every existential spelled `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

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

        // Entities, repository protocols, use cases. Foundation only.
        .target(name: "Domain", swiftSettings: swiftSettings),
        // Threads for blocking work: bounded worker pools and one-off blocking calls.
        .target(name: "Workers", dependencies: ["Domain"], swiftSettings: swiftSettings),
        // Tokens, hashes and signatures (OpenSSL): access and refresh tokens, passwords,
        // ID tokens and their keys.
        .target(name: "Cryptography", dependencies: ["Domain", "Workers", "COpenSSL"], swiftSettings: swiftSettings),
        // Everything stored: PostgreSQL (libpq) and its pools, migrations, repositories,
        // the embedded cluster, the media library on disk, seeders.
        .target(name: "Persistence", dependencies: ["Domain", "Workers", "Cryptography", "CLibPQ"], swiftSettings: swiftSettings),
        // Outbound services the product calls over HTTP: the Instagram profile lookup.
        .target(name: "Integrations", dependencies: ["Domain"], swiftSettings: swiftSettings),
        // The HTTP transport, knowing nothing of the product: the libmicrohttpd engine,
        // requests and responses, routing, middleware, CORS, ETag, gzip (zlib), the JSON
        // writer, the logger and metrics. A test reads its imports.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "CZlib"], swiftSettings: swiftSettings),
        // The product's API on the transport: controllers, wire shapes, error mapping, auth.
        .target(name: "App", dependencies: ["Domain", "Workers", "Cryptography", "Persistence", "HTTPServer"], swiftSettings: swiftSettings),
        // The composition root: configuration, the CLI commands, Data's implementations
        // wired into App, and serve's lifecycle.
        .target(name: "Server", dependencies: ["Domain", "Workers", "Cryptography", "Persistence", "Integrations", "HTTPServer", "App"], swiftSettings: swiftSettings),
        // Thin entry point: parses the subcommand and hands over to Server.
        .executableTarget(name: "market09", dependencies: ["Server"], swiftSettings: swiftSettings),

        // The Swift client of the API (Foundation and FoundationNetworking only): token
        // storage, refresh with single flight, and the app's launch-time auth check.
        .target(name: "Market09Client", swiftSettings: swiftSettings),

        // In-memory ports and a settable clock for Domain's unit tests: no I/O.
        .target(name: "Fakes", dependencies: ["Domain"], swiftSettings: swiftSettings),
        // Throwaway PostgreSQL databases, the application in-process, a raw HTTP client,
        // captured logs.
        .target(name: "TestSupport", dependencies: ["Domain", "Workers", "Cryptography", "Persistence", "HTTPServer", "App", "Server", "Fakes"],
                swiftSettings: swiftSettings),
        // Processes: the built market09, PgBouncer, throwaway clusters, external commands.
        .target(name: "ProcessSupport", dependencies: ["Persistence", "Workers", "TestSupport"], swiftSettings: swiftSettings),

        // Test targets by what they need, run by scripts/test in this order: nothing (Domain
        // against in-memory ports; the transport's router), then one PostgreSQL (the
        // database-backed tests), then processes and topologies.
        .testTarget(name: "DomainTests", dependencies: ["Domain", "Fakes"], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"], swiftSettings: swiftSettings),
        .testTarget(name: "PersistenceTests", dependencies: ["Workers", "Cryptography", "Persistence", "TestSupport", "Fakes"], swiftSettings: swiftSettings),
        .testTarget(name: "AppTests", dependencies: ["Workers", "Cryptography", "Persistence", "HTTPServer", "App", "Server", "TestSupport", "Fakes", "CZlib"],
                    swiftSettings: swiftSettings),
        // The 09Market app's own response types, declared apart from the server's code,
        // decoding every answer of the Supabase-compatible surface.
        .testTarget(name: "AppDecodingTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "Market09ClientTests", dependencies: ["Market09Client", "HTTPServer", "App", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ProcessTests", dependencies: ["Workers", "Cryptography", "Persistence", "Integrations", "HTTPServer", "App", "Server", "TestSupport",
                                                         "ProcessSupport", "Fakes"], swiftSettings: swiftSettings),
    ]
)
