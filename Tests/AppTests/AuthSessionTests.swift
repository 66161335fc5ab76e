import App
import Foundation
import HTTPServer
import Persistence
import TestSupport
import Testing

/// Sign-in, sign-up and the token endpoint, against PostgreSQL.
@Suite struct AuthSessionTests {
    @Test func anonymousSignInCreatesAUserWhoseMeAnswers204() async throws {
        try await withTestApp { app async throws in
            let response = try await app.send("POST", "/v1/auth/anonymous")

            #expect(response.status == 201)
            #expect(response.json["token_type"] as? String == "bearer")
            #expect(response.json["expires_in"] as? Int == 3600)
            #expect(response.json["expires_at"] as? Int == Int(app.clock.now.timeIntervalSince1970) + 3600)
            let user = try #require(response.json["user"] as? [String: any Sendable])
            #expect(user["is_anonymous"] as? Bool == true)
            #expect(user["role"] as? String == "user")
            #expect(user["nickname"] is NSNull)
            let session = try TestSession(response)
            #expect(session.refreshToken.count >= 43)

            let me = try await app.send("GET", "/v1/me", token: session.accessToken)
            #expect(me.status == 204)
            #expect(me.response.body.isEmpty)
        }
    }

    @Test func signUpMakesAPermanentUserWithAProfile() async throws {
        try await withTestApp { app async throws in
            let response = try await app.send("POST", "/v1/auth/signup", json: ["email": "Mina@Example.com ", "password": "correct horse", "nickname": "미나"])
            #expect(response.status == 201)
            let session = try TestSession(response)

            let me = try await app.send("GET", "/v1/me", token: session.accessToken)
            #expect(me.status == 200)
            #expect(Set(me.json.keys) == ["id", "nickname", "profile_url", "provider", "email", "created_at"])
            #expect(me.json["id"] as? String == session.userID)
            #expect(me.json["nickname"] as? String == "미나")
            #expect(me.json["email"] as? String == "mina@example.com")
            #expect(me.json["provider"] as? String == "email")
            #expect(me.json["profile_url"] is NSNull)
        }
    }

    @Test func aTakenEmailAnswers409WhateverItsCase() async throws {
        try await withTestApp { app async throws in
            _ = try await app.send("POST", "/v1/auth/signup", json: ["email": "dup@example.com", "password": "password-1"])
            let again = try await app.send("POST", "/v1/auth/signup", json: ["email": "DUP@example.com", "password": "password-2"])

            #expect(again.status == 409)
            #expect(again.errorCode == "email_taken")
        }
    }

    @Test(arguments: [
        (["email": "not-an-email", "password": "long enough"], "email"),
        (["email": "a@b.co", "password": "short"], "password"),
        (["email": "a@b.co", "password": "long enough", "nickname": String(repeating: "가", count: 31)], "nickname"),
        (["password": "long enough"], "email"),
        (["email": "a@b.co", "password": 12345678], "password"),
    ] as [([String: any Sendable], String)])
    func invalidSignUpsAnswer400NamingTheField(body: [String: any Sendable], field: String) async throws {
        try await withTestApp { app async throws in
            let response = try await app.send("POST", "/v1/auth/signup", json: body)

            #expect(response.status == 400)
            #expect(response.json["field"] as? String == field)
        }
    }

    @Test func passwordGrantSignsInAndWrongCredentialsLookTheSame() async throws {
        try await withTestApp { app async throws in
            let created = try TestSession(try await app.send("POST", "/v1/auth/signup", json: ["email": "kim@example.com", "password": "s3cret-pass"]))

            let signedIn = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "KIM@example.com", "password": "s3cret-pass"])
            #expect(signedIn.status == 200)
            #expect(try TestSession(signedIn).userID == created.userID)

            let wrongPassword = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "kim@example.com", "password": "nope-nope"])
            let unknownEmail = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "password", "email": "who@example.com", "password": "nope-nope"])
            #expect(wrongPassword.status == 400)
            #expect(wrongPassword.text == unknownEmail.text)
            #expect(wrongPassword.errorCode == "invalid_credentials")
        }
    }

    @Test func unknownGrantTypesAndMissingFieldsAnswer400() async throws {
        try await withTestApp { app async throws in
            let unknown = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "magic"])
            #expect(unknown.status == 400)
            #expect(unknown.json["field"] as? String == "grant_type")
            let missing = try await app.send("POST", "/v1/auth/token", json: ["grant_type": "refresh_token"])
            #expect(missing.json["field"] as? String == "refresh_token")
            let notJSON = await app.responder.respond(to: HTTPRequest(method: "POST", path: "/v1/auth/token", body: Data("{oops".utf8)))
            #expect(notJSON.status == 400)
            #expect(String(decoding: notJSON.body, as: UTF8.self) == #"{"error":"invalid_body","message":"the request body is not valid JSON"}"#)
        }
    }
}
