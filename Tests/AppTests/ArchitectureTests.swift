import Foundation
import TestSupport
import Testing

/// The layering, read from the sources themselves: the compiler enforces what a target may
/// import only for targets it was not given, so the rules a reader relies on are checked here.
@Suite struct ArchitectureTests {
    private static let root = TestDatabase.packageRoot.appendingPathComponent("Sources")

    /// Every `.swift` file under `Sources/<target>` and the modules it imports.
    private static func imports(of target: String) throws -> [(file: String, modules: Set<String>)] {
        let directory = root.appendingPathComponent(target)
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { file in
            let text = try String(contentsOf: file, encoding: .utf8)
            let modules = text.split(separator: "\n").compactMap { line -> String? in
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), words.prefix(index).allSatisfy({ $0.hasPrefix("@") }),
                      index + 1 < words.count else { return nil }
                return String(words[index + 1])
            }
            return (file.path.replacingOccurrences(of: root.path + "/", with: ""), Set(modules))
        }
    }

    @Test func theTransportKnowsNothingOfTheProduct() throws {
        let allowed: Set = ["Foundation", "Dispatch", "Synchronization", "CMicroHTTPD", "CZlib"]
        let files = try Self.imports(of: "HTTPServer")
        #expect(files.count > 20)
        for (file, modules) in files {
            #expect(modules.isSubset(of: allowed), "\(file) imports \(modules.subtracting(allowed).sorted())")
        }
    }

    @Test func theDomainDoesNoIOAndTheAPIBarelyTouchesPersistence() throws {
        for (file, modules) in try Self.imports(of: "Domain") {
            #expect(modules.isSubset(of: ["Foundation", "Synchronization", "Codecs"]), "\(file) imports \(modules.sorted())")
        }
        let persistent = try Self.imports(of: "App").filter { $0.modules.contains("Persistence") }.map(\.file).sorted()
        #expect(persistent.count <= 4, "App files importing Persistence: \(persistent)")
        for target in ["Workers", "Cryptography", "Persistence", "Integrations"] {
            for (file, modules) in try Self.imports(of: target) {
                #expect(modules.isDisjoint(with: ["HTTPServer", "App", "Server"]), "\(file) imports \(modules.sorted())")
            }
        }
    }

    /// Small files: a reader holds one in view (STYLE.md).
    @Test func noSourceFileIsLongerThan300Lines() throws {
        let files = FileManager.default.enumerator(at: Self.root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        for file in files where file.pathExtension == "swift" {
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false).count
            #expect(lines <= 300, "\(file.lastPathComponent): \(lines) lines")
        }
    }

    /// Every `.swift` file under `Sources` (or one target of it), with its text.
    private static func sources(under target: String = "") throws -> [(file: String, text: String)] {
        let directory = target.isEmpty ? root : root.appendingPathComponent(target)
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
        return try files.filter { $0.pathExtension == "swift" }.map { file in
            (file.path.replacingOccurrences(of: root.path + "/", with: ""), try String(contentsOf: file, encoding: .utf8))
        }
    }

    /// The driver is its own module, as postgres-nio is: libpq is reached through it alone.
    @Test func onlyTheDriverImportsLibpq() throws {
        let importers = try Self.sources().filter { $0.text.contains("import CLibPQ") }.map(\.file)
        #expect(!importers.isEmpty && importers.allSatisfy { $0.hasPrefix("PostgresDriver/") }, "\(importers)")
        for (file, modules) in try Self.imports(of: "PostgresDriver") {
            #expect(modules.isSubset(of: ["Foundation", "Synchronization", "CLibPQ", "Codecs"]), "\(file) imports \(modules.sorted())")
        }
    }

    /// One way to write a statement: ``SQL`` with its values bound. Raw text reaches the
    /// server only through the named escape hatch, and only migrations use it.
    @Test func noStatementIsRawTextOutsideMigrations() throws {
        let users = try Self.sources().filter { $0.text.contains("unsafeSQL:") && !$0.file.hasPrefix("PostgresDriver/") }.map(\.file)
        #expect(users == ["Persistence/Migrations/Migrator.swift"], "\(users)")
        // The driver takes statements as `SQL` only: no entry point accepts text.
        let entries = try Self.sources(under: "PostgresDriver").filter {
            $0.text.range(of: #"public func (query|execute|read|queryPlannedForValues)[^(]*\(_ [a-z]+: String"#, options: .regularExpression) != nil
        }.map(\.file)
        #expect(entries.isEmpty, "text entry points in \(entries)")
    }

    /// Request state travels in signatures (`RequestContext`, `AppContext`, `RequestScope`).
    @Test func noTaskLocalsCarryRequestState() throws {
        for target in ["App", "Persistence", "PostgresDriver", "HTTPServer", "Domain"] {
            let files = try Self.sources(under: target).filter { $0.text.contains("@TaskLocal") }.map(\.file)
            #expect(files.isEmpty, "\(files)")
        }
    }

    /// One catalogue of error codes: none written inline in a handler or the transport.
    @Test func errorCodesAreNamedInTheirCatalogueOnly() throws {
        let catalogues: Set = ["App/HTTP/ErrorCodes.swift", "HTTPServer/HTTP/TransportErrorCodes.swift", "App/Features/Supabase/SupabaseErrorCodes.swift"]
        for target in ["App", "HTTPServer"] {
            for (file, text) in try Self.sources(under: target) where !catalogues.contains(file) {
                #expect(text.range(of: #"code: ""#) == nil, "\(file) writes an error code inline")
            }
        }
    }

    /// Tests by need: at least 40 % need nothing but the code (the first stage's targets).
    @Test func aGoodShareOfTestsNeedsNoIO() throws {
        let tests = TestDatabase.packageRoot.appendingPathComponent("Tests")
        func count(_ target: String, skipping: [String] = []) throws -> Int {
            let files = FileManager.default.enumerator(at: tests.appendingPathComponent(target), includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
            return try files.filter { $0.pathExtension == "swift" && !skipping.contains($0.lastPathComponent) }.map { file in
                try String(contentsOf: file, encoding: .utf8).components(separatedBy: "@Test").count - 1
            }.reduce(0, +)
        }
        let noIO = try ["DomainTests", "PostgresDriverTests", "UnitTests"].map { try count($0) }.reduce(0, +)
            + count("HTTPServerTests", skipping: ["EngineTests.swift"])
        let all = try FileManager.default.contentsOfDirectory(atPath: tests.path).filter { !$0.hasPrefix(".") && $0 != "e2e" }.map { try count($0) }.reduce(0, +)
        let share = Double(noIO) / Double(all)
        print("tests without I/O: \(noIO) of \(all) (\(Int(share * 100)) %)")
        #expect(share >= 0.40, "\(noIO) of \(all)")
    }
}
