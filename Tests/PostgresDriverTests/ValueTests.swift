import Foundation
@testable import PostgresDriver
import Testing

/// The driver's small values: WAL positions as the server and the cookie write them,
/// SQLSTATEs as the codes callers switch on.
@Suite struct ValueTests {
    @Test func aWALPositionReadsTheServersFormAndItsOwnHex() throws {
        let position = try #require(WALPosition("16/B374D848"))
        #expect(position.value == 0x16_B374_D848 && position.description == "16/B374D848")
        #expect(WALPosition(position.hex) == position, "the cookie's form reads back")
    }

    @Test(arguments: ["", "/", "1/2/3", "G/1", "123456789/1", "1/123456789", "12345678901234567", "-1"])
    func anythingElseIsNoPosition(text: String) {
        #expect(WALPosition(text) == nil)
    }

    @Test func positionsOrderByTheirValue() throws {
        let early = try #require(WALPosition("0/FFFFFFFF")), late = try #require(WALPosition("1/0"))
        #expect(early < late && [late, early].max() == late)
    }

    @Test func sqlStatesBecomeTheCodesCallersSwitchOn() {
        #expect(PostgresError(message: "", sqlState: "23505").code == .uniqueViolation)
        #expect(PostgresError(message: "", sqlState: "40001").code == .serializationFailure)
        #expect(PostgresError(message: "", sqlState: "57014").code == .queryTimeout)
        #expect(PostgresError(message: "", sqlState: "57P01").code == .connectionFailure, "an administrator's shutdown")
        #expect(PostgresError(message: "", sqlState: "42P01").code == .other)
    }

    @Test func onlySerializationFailuresAndDeadlocksAreWorthATransactionAgain() {
        #expect(PostgresError(message: "", sqlState: "40001").isTransient)
        #expect(PostgresError(message: "", sqlState: "40P01").isTransient)
        #expect(!PostgresError(message: "", sqlState: "23505").isTransient)
        #expect(!PostgresError(code: .connectionFailure, message: "").isTransient, "a lost connection is the pool's to retry, not the transaction's")
    }

    @Test func anExplicitCodeWinsOverTheState() {
        #expect(PostgresError(code: .poolTimeout, message: "", sqlState: "23505").code == .poolTimeout)
    }
}

/// A value libpq would cut short never leaves the driver.
@Suite struct ParameterTextTests {
    @Test func aNULByteInAParameterIsRefusedBeforeAnythingIsSent() {
        #expect(throws: PostgresError.self) { try refuseNULBytes(["abc\u{0}def"]) }
        #expect(throws: Never.self) { try refuseNULBytes(["abc", nil, "가나다"]) }
    }
}
