import Cryptography
import Foundation
import HTTPServer

/// What the Supabase-compatible surface needs to know: the project's anon key every request
/// carries in `apikey`, as Supabase's gateway requires.
public struct SupabaseSettings: Sendable {
    /// The anon key (any string; the hosted project's is a JWT the app is built with).
    public var anonKey: String

    public init(anonKey: String) {
        self.anonKey = anonKey
    }
}

/// The three dialects of the compatible surface: each answers errors in the shape its
/// original sends and its clients decode.
enum SupabaseDialect: Sendable {
    /// Supabase Auth: `{code, error_code, msg, message}` and `X-Supabase-Api-Version`.
    case auth
    /// The app's edge functions: `{error, message}` with their codes.
    case functions
    /// PostgREST: `{code, details, hint, message}`.
    case postgrest
}

/// Builds the compatible routes: checks `apikey` first (401 in the gateway's words when
/// it is missing or wrong), runs the handler, and renders any error in the route's
/// dialect from the one mapping every route shares (``ErrorResponses``).
struct SupabaseGate: Sendable {
    let settings: SupabaseSettings
    let errors: ErrorResponses
    let dialect: SupabaseDialect
    let endpoints: Endpoints

    func route(_ method: String, _ path: String, _ handler: @escaping AppHandler) -> Route {
        endpoints.route(method, path) { [settings, errors, dialect] request, context in
            var response: HTTPResponse
            if let refusal = Self.keyRefusal(request, settings: settings) {
                response = refusal
            } else {
                do {
                    response = try await handler(request, context)
                } catch {
                    response = Self.render(errors.answer(for: error, request: request), in: dialect)
                }
            }
            if dialect == .auth { response.headers.set("X-Supabase-Api-Version", "2024-01-01") }
            return response
        }
    }

    /// An admission of a route's head (``Reception``) behind the same gate: `apikey`
    /// first, then `check`, its errors rendered in this dialect.
    func admission(_ check: @escaping Reception.Admission) -> Reception.Admission {
        { [settings, errors, dialect] request in
            if let refusal = Self.keyRefusal(request, settings: settings) { return refusal }
            do {
                return try await check(request)
            } catch {
                return Self.render(errors.answer(for: error, request: request), in: dialect)
            }
        }
    }

    /// Supabase's gateway (Kong) answers before any service sees the request.
    private static func keyRefusal(_ request: HTTPRequest, settings: SupabaseSettings) -> HTTPResponse? {
        guard let key = request.headers["apikey"] ?? request.query["apikey"] else {
            return gatewayError("No API key found in request", hint: "No `apikey` request header or url param was found.")
        }
        guard CryptoPrimitives.constantTimeEquals(Array(key.utf8), Array(settings.anonKey.utf8)) else {
            return gatewayError("Invalid API key", hint: "Double check your Supabase `anon` or `service_role` API key.")
        }
        return nil
    }

    private static func gatewayError(_ message: String, hint: String) -> HTTPResponse {
        var response = HTTPResponse.json(JSONObject([("message", .string(message)), ("hint", .string(hint))]), status: 401)
        response.errorCode = ErrorCodes.invalidAPIKey
        return response
    }

    /// One of our answers (``ErrorResponses/answer(for:request:)``) in `dialect`.
    static func render(_ answer: APIError, in dialect: SupabaseDialect) -> HTTPResponse {
        let (status, wireCode, wireMessage): (Int, String, String)
        switch dialect {
        case .auth: (status, wireCode, wireMessage) = SupabaseErrorCodes.auth(status: answer.status, code: answer.code, message: answer.message)
        case .functions: (status, wireCode, wireMessage) = SupabaseErrorCodes.functions(status: answer.status, code: answer.code, message: answer.message)
        case .postgrest: (status, wireCode, wireMessage) = SupabaseErrorCodes.postgrest(status: answer.status, code: answer.code, message: answer.message)
        }
        let body: JSONObject
        switch dialect {
        case .auth:
            body = JSONObject([("code", .string(wireCode)), ("error_code", .string(wireCode)), ("msg", .string(wireMessage)),
                               ("message", .string(wireMessage))])
        case .functions:
            body = JSONObject([("error", .string(wireCode)), ("message", .string(wireMessage))])
        case .postgrest:
            body = JSONObject([("code", .string(wireCode)), ("details", .null), ("hint", .null), ("message", .string(wireMessage))])
        }
        var response = HTTPResponse.json(body, status: status)
        response.errorCode = wireCode
        if let wait = answer.headers["Retry-After"] { response.headers.set("Retry-After", wait) }
        return response
    }
}

/// A small JSON object of strings and nulls, fields in order.
struct JSONObject: JSONWritable {
    enum Value {
        case string(String)
        case null
    }

    let fields: [(String, Value)]

    init(_ fields: [(String, Value)]) { self.fields = fields }

    func write(to json: inout JSONWriter) {
        json.object { json in
            for (name, value) in fields {
                switch value {
                case .string(let text): json.field(dynamic: name, text)
                case .null: json.field(dynamic: name, String?.none)
                }
            }
        }
    }
}
