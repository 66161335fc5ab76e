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
            #expect(modules.isSubset(of: ["Foundation", "Synchronization"]), "\(file) imports \(modules.sorted())")
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
}
