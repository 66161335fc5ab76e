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
        // PostgreSQL (libpq), migrations, the embedded cluster, crypto (OpenSSL).
        .target(name: "Data", dependencies: ["Domain", "CLibPQ", "COpenSSL"], swiftSettings: swiftSettings),
        // HTTP transport (libmicrohttpd, zlib for gzip), routing, handlers, auth middleware: speaks to Domain.
        .target(name: "App", dependencies: ["Domain", "Data", "CMicroHTTPD", "CZlib"], swiftSettings: swiftSettings),
        // The composition root: configuration, the CLI commands, Data's implementations
        // wired into App, and serve's lifecycle.
        .target(name: "Server", dependencies: ["Domain", "Data", "App"], swiftSettings: swiftSettings),
        // Thin entry point: parses the subcommand and hands over to Server.
        .executableTarget(name: "market09", dependencies: ["Server"], swiftSettings: swiftSettings),

        // The Swift client of the API (Foundation and FoundationNetworking only): token
        // storage, refresh with single flight, and the app's launch-time auth check.
        .target(name: "Market09Client", swiftSettings: swiftSettings),

        // Fixtures, in-memory repositories, throwaway PostgreSQL databases, a raw HTTP client.
        .target(name: "TestSupport", dependencies: ["Domain", "Data", "App", "Server"], swiftSettings: swiftSettings),

        .testTarget(name: "DomainTests", dependencies: ["Domain", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DataTests", dependencies: ["Data", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "AppTests", dependencies: ["App", "Server", "TestSupport", "CZlib"], swiftSettings: swiftSettings),
        // The 09Market app's own response types, declared apart from the server's code,
        // decoding every answer of the Supabase-compatible surface.
        .testTarget(name: "AppDecodingTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "Market09ClientTests", dependencies: ["Market09Client", "App", "TestSupport"], swiftSettings: swiftSettings),
    ]
)
