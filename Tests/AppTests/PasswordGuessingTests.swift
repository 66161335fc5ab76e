import App
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Every route that checks a password draws from one budget per email and one per client
/// address, reserved before the check so concurrent guesses cannot overdraw it.
@Suite struct PasswordGuessingTests {
    private static let target = ["email": "target@example.com", "password": "the-real-one"]

    private func signUpTarget(_ app: TestApp) async throws {
        #expect(try await app.send("POST", "/v1/auth/signup", json: Self.target, remoteAddress: "192.0.2.200").status == 201)
    }

    private func mergeGuess(_ app: TestApp, password: String, token: String, address: String) async throws -> TestResponse {
        try await app.send("POST", "/v1/auth/upgrade", json: ["provider": "email", "email": "target@example.com", "password": password, "merge": true],
                           token: token, remoteAddress: address)
    }

    @Test func upgradeWithMergeDrawsFromTheFailedPasswordBudgetOfTheEmail() async throws {
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 3, per: 900) }) { app async throws in
            try await signUpTarget(app)
            let anonymous = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            for (index, address) in ["198.51.100.1", "198.51.100.2", "198.51.100.3"].enumerated() {
                #expect(try await mergeGuess(app, password: "guess-\(index)", token: anonymous.accessToken, address: address).errorCode == "invalid_credentials")
            }
            let limited = try await mergeGuess(app, password: "guess-4", token: anonymous.accessToken, address: "198.51.100.4")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "900")
            // The same budget guards the password grant.
            let grant = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password"].merging(Self.target) { $1 }, remoteAddress: "198.51.100.5")
            #expect(grant.status == 429)
        }
    }

    @Test func passwordGrantFailuresCountAgainstUpgrade() async throws {
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 2, per: 900) }) { app async throws in
            try await signUpTarget(app)
            for address in ["198.51.100.1", "198.51.100.2"] {
                let guess = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com", "password": "wrong-guess"], remoteAddress: address)
                #expect(guess.errorCode == "invalid_credentials")
            }
            let anonymous = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            #expect(try await mergeGuess(app, password: "the-real-one", token: anonymous.accessToken, address: "198.51.100.3").status == 429)
        }
    }

    @Test func upgradeIsLimitedLikeTheTokenEndpointPerAddress() async throws {
        try await withTestApp(configure: { $0.tokenRequests = .init(count: 3, per: 300) }) { app async throws in
            let anonymous = try TestSession(try await app.send("POST", "/v1/auth/anonymous"))
            for index in 0..<3 {
                let response = try await app.send("POST", "/v1/auth/upgrade", json: ["provider": "email", "email": "bad-\(index)", "password": "long-enough"],
                                                  token: anonymous.accessToken, remoteAddress: "198.51.100.9")
                #expect(response.status == 400)
            }
            let limited = try await app.send("POST", "/v1/auth/upgrade", json: ["provider": "email", "email": "bad", "password": "long-enough"],
                                             token: anonymous.accessToken, remoteAddress: "198.51.100.9")
            #expect(limited.status == 429)
            #expect(limited.header("Retry-After") == "300")
        }
    }

    @Test func failedPasswordsAreLimitedPerAddressAcrossEmails() async throws {
        try await withTestApp(configure: { $0.failedPasswordsPerAddress = .init(count: 3, per: 900) }) { app async throws in
            for index in 0..<3 {
                let guess = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "user\(index)@example.com", "password": "wrong-guess"],
                                               remoteAddress: "198.51.100.20")
                #expect(guess.errorCode == "invalid_credentials")
            }
            let limited = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "user9@example.com", "password": "wrong-guess"],
                                             remoteAddress: "198.51.100.20")
            #expect(limited.status == 429)
            #expect(try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "user9@example.com", "password": "wrong-guess"],
                                       remoteAddress: "198.51.100.21").errorCode == "invalid_credentials")
        }
    }

    @Test func concurrentGuessesForOneEmailReachTheKDFAtMostLimitTimes() async throws {
        let hasher = CountingPasswordHasher()
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 10, per: 900) }, passwords: hasher) { app async throws in
            try await signUpTarget(app)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com", "password": "wrong-\(index)"],
                                           remoteAddress: "198.51.100.\(index + 1)").status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(hasher.verifications <= 10, "\(hasher.verifications) guesses reached the KDF")
            #expect(statuses.filter { $0 == 400 }.count == hasher.verifications)
            #expect(statuses.filter { $0 == 429 }.count == 40 - hasher.verifications)
        }
    }

    @Test func anUnknownEmailCostsOnePasswordCheckLikeAKnownOne() async throws {
        let hasher = CountingPasswordHasher()
        try await withTestApp(passwords: hasher) { app async throws in
            try await signUpTarget(app)
            let known = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "target@example.com", "password": "wrong-guess"])
            #expect(known.errorCode == "invalid_credentials")
            #expect(hasher.verifications == 1)
            let unknown = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "nobody@example.com", "password": "wrong-guess"])
            #expect(unknown.errorCode == "invalid_credentials")
            #expect(unknown.text == known.text)
            #expect(hasher.verifications == 2)
        }
    }

    @Test func oversizedEmailsAreRefusedBeforeAnyLimiterOrQuery() async throws {
        let hasher = CountingPasswordHasher()
        try await withTestApp(configure: { $0.failedPasswordSignIns = .init(count: 1, per: 900) }, passwords: hasher) { app async throws in
            let long = String(repeating: "a", count: 250) + "@example.com"
            for _ in 0..<3 {
                let response = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": long, "password": "wrong-guess"])
                #expect(response.status == 400)
                #expect(response.errorCode == "invalid_input")
                #expect(response.json["field"] as? String == "email")
            }
            #expect(hasher.verifications == 0)
        }
    }
}

/// The KDF's cost is bounded per instance: a storm of sign-ins is answered `busy` at once
/// beyond the threads and queue, never piled onto the cores.
@Suite struct PasswordStormTests {
    @Test func signInsBeyondTheKDFQueueAnswerBusyAtOnce() async throws {
        try await withTestApp(configure: {
            $0.passwordIterations = 300_000
            $0.passwordHashThreads = 1
            $0.passwordHashQueue = 2
        }) { app async throws in
            let statuses = try await withThrowingTaskGroup(of: (Int, String?, String?).self) { group in
                for index in 0..<16 {
                    group.addTask {
                        let response = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "storm\(index)@example.com", "password": "wrong-guess"],
                                                          remoteAddress: "198.51.100.\(index + 1)")
                        return (response.status, response.errorCode, response.header("Retry-After"))
                    }
                }
                return try await group.reduce(into: [(Int, String?, String?)]()) { $0.append($1) }
            }
            let checked = statuses.filter { $0.1 == "invalid_credentials" }
            let busy = statuses.filter { $0.0 == 503 && $0.1 == "busy" && $0.2 == "1" }
            #expect(checked.count + busy.count == 16, "\(statuses)")
            #expect((1...3).contains(checked.count), "at most one running and two waiting: \(checked.count) checked")
        }
    }
}
