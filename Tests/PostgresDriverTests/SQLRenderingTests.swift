import Foundation
import PostgresDriver
import Testing

/// Statements whose values are bound where they are written: how ``SQL`` renders, with no
/// server (the server's side is PersistenceTests' `SQLTests`).
@Suite struct SQLRenderingTests {
    @Test func valuesBecomeNumberedParametersInOrderAndFragmentsAreRenumbered() {
        let id = UUID(uuidString: "00000000-0000-0000-0000-000000000007")!
        let nickname: String? = nil
        let picture: String? = "https://cdn.example/p.jpg"
        let condition: SQL = "AND role = \(unescaped: "'admin'") AND created_at < \(Date(timeIntervalSince1970: 0))"
        let statement: SQL = """
            UPDATE users SET nickname = COALESCE(\(nickname), nickname), profile_url = \(picture) WHERE id = \(id) \(condition) AND \(42) > 0
            """
        let (text, parameters) = statement.rendered
        #expect(text == "UPDATE users SET nickname = COALESCE($1, nickname), profile_url = $2 WHERE id = $3 AND role = 'admin' AND created_at < $4 AND $5 > 0")
        #expect(parameters.map(\.postgresText) == [nil, "https://cdn.example/p.jpg", "00000000-0000-0000-0000-000000000007",
                                                    Date(timeIntervalSince1970: 0).postgresText, "42"])
    }

    @Test func aValueThatLooksLikeSQLIsAParameterNotText() {
        let hostile = "x'); DROP TABLE users; --"
        let statement: SQL = "SELECT \(hostile)::text"
        let (text, parameters) = statement.rendered
        #expect(text == "SELECT $1::text" && parameters.map(\.postgresText) == [hostile])
    }

    @Test func fragmentsJoinWithTheirValuesRenumbered() {
        let conditions: [SQL] = ["a = \(1)", "b = \(2)", "c IS NOT NULL"]
        let limit: SQL = " LIMIT \(raw: 5)"
        let (text, parameters) = ("SELECT 1 WHERE " + conditions.joined(separator: " AND ") + limit).rendered
        #expect(text == "SELECT 1 WHERE a = $1 AND b = $2 AND c IS NOT NULL LIMIT 5")
        #expect(parameters.map(\.postgresText) == ["1", "2"])
    }

    @Test func emptinessIsAboutTextAndValuesAlike() {
        #expect(SQL(stringLiteral: "").isEmpty)
        #expect(([] as [SQL]).joined(separator: ", ").isEmpty)
        let null: SQL = "\(Optional<Int>.none)"
        #expect(!null.isEmpty, "a NULL is still a value")
    }

    @Test func theSameShapeRendersTheSameTextForAnyValues() {
        // What keeps one prepared plan per statement shape: the text depends on the
        // fragments, never on the values.
        func statement(_ name: String, _ limit: Int) -> SQL { "SELECT id FROM posts WHERE product_name = \(name) LIMIT \(limit)" }
        #expect(statement("a", 1).rendered.text == statement("완전히 다른 값", 50).rendered.text)
    }

    @Test func arraysOfTextAreOneParameterInPostgresArraySyntax() {
        let tags = PostgresTextArray(["a", "with space", "quote\"d", "back\\slash"])
        let statement: SQL = "SELECT \(tags)::text[]"
        let (text, parameters) = statement.rendered
        #expect(text == "SELECT $1::text[]")
        #expect(parameters.map(\.postgresText) == [#"{"a","with space","quote\"d","back\\slash"}"#])
    }
}
