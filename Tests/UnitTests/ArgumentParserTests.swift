@testable import App
import HTTPServer
@testable import Server
import Testing

@Suite struct ArgumentParserTests {
    @Test func flagsOptionsAndPositionalsAreSeparated() throws {
        let parsed = try ParsedArguments(["posts.csv", "--format", "csv", "--atomic", "--rejects=/tmp/r.txt"],
                                         flags: ["atomic"], options: ["format", "rejects"])
        #expect(parsed.positionals == ["posts.csv"])
        #expect(parsed.flag("atomic"))
        #expect(!parsed.flag("dry-run"))
        #expect(parsed.option("format") == "csv")
        #expect(parsed.option("rejects") == "/tmp/r.txt")
    }

    @Test(arguments: [
        (["--nope"], "unknown option --nope"),
        (["--format"], "--format needs a value"),
        (["--atomic=yes"], "--atomic takes no value"),
        (["--format", "csv", "--format", "json"], "--format given twice"),
    ])
    func mistakesAreUsageErrors(arguments: [String], message: String) {
        do {
            _ = try ParsedArguments(arguments, flags: ["atomic"], options: ["format"])
            Issue.record("expected a usage error")
        } catch {
            #expect(String(describing: error) == message)
        }
    }

    @Test func positionalCountsAreChecked() throws {
        #expect(throws: UsageError.self) { try ParsedArguments([]).positionals("FILE") }
        #expect(throws: UsageError.self) { try ParsedArguments(["a", "b"]).positionals("FILE") }
        #expect(try ParsedArguments(["a"]).positionals("FILE") == ["a"])
        #expect(try ParsedArguments(["--size", "12"], options: ["size"]).integer("size", in: 1...20, default: 5) == 12)
        #expect(throws: UsageError.self) { try ParsedArguments(["--size", "99"], options: ["size"]).integer("size", in: 1...20, default: 5) }
    }
}
