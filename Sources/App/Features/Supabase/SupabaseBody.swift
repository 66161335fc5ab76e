import Foundation
import HTTPServer

/// A request body as Supabase's clients send it: a JSON object (or, for PostgREST, an
/// array of one) whose optional fields may be `null` (`"nonce": null`,
/// `"gotrue_meta_security": {...}`) — read leniently, field by field, where our own API
/// refuses nulls.
struct SupabaseBody {
    private let object: [String: JSONValue]

    /// An empty body is an empty object (Supabase's anonymous sign-up may send none).
    init(_ request: HTTPRequest, acceptsSingleElementArray: Bool = false) throws {
        guard !request.body.isEmpty else {
            object = [:]
            return
        }
        // JSONSerialization, not JSONDecoder into a value enum: trying each type in turn at
        // every level cost 1.1 s of CPU for 400 nested arrays (a body anyone may send);
        // JSONSerialization parses that in 0.4 ms and refuses depth beyond 512.
        let value: JSONValue
        do {
            value = JSONValue(try JSONSerialization.jsonObject(with: request.body, options: [.fragmentsAllowed]))
        } catch {
            throw APIError.invalidBody("the request body is not valid JSON")
        }
        switch value {
        case .object(let object): self.object = object
        case .array(let array) where acceptsSingleElementArray && array.count == 1:
            guard case .object(let object) = array[0] else { fallthrough }
            self.object = object
        default:
            throw APIError.invalidBody(acceptsSingleElementArray ? "the body must be an object or an array of one object" : "the body must be a JSON object")
        }
    }

    /// Whether the field is present and not `null`.
    func has(_ name: String) -> Bool {
        switch object[name] {
        case nil, .null?: return false
        default: return true
        }
    }

    /// 400 for any of `names` sent as `null`, where null would mean "clear it" and the
    /// server cannot.
    func refuseNulls(_ names: [String]) throws {
        for name in names {
            if case .null? = object[name] { throw APIError.invalidBody("\(name) must not be null; omit it instead", field: name) }
        }
    }

    /// A string field; `nil` when absent or `null`, 400 when another type.
    func string(_ name: String) throws -> String? {
        switch object[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw APIError.invalidBody("\(name) must be a string", field: name)
        }
    }

    /// A required, non-empty string field (`missing_required_field` in the functions' words).
    func required(_ name: String) throws -> String {
        guard let text = try string(name), !text.isEmpty else {
            throw APIError(status: 400, code: ErrorCodes.missingRequiredField, message: "'\(name)' is required", field: name)
        }
        return text
    }

    /// An integer field; `nil` when absent or `null`.
    func integer(_ name: String) throws -> Int? {
        switch object[name] {
        case nil, .null?: return nil
        case .integer(let value)?: return value
        default: throw APIError.invalidBody("\(name) must be an integer", field: name)
        }
    }

    /// A boolean field; `false` when absent, `null` or not a boolean.
    func flag(_ name: String) -> Bool {
        if case .boolean(true)? = object[name] { return true }
        return false
    }

    /// An id the original backend kept as text: a string of digits or a number.
    func id(_ name: String) throws -> Int? {
        let value: Int?
        switch object[name] {
        case nil, .null?: return nil
        case .string(let text)?: value = Int(text).flatMap { String($0) == text ? $0 : nil }
        case .integer(let number)?: value = number
        default: value = nil
        }
        guard let value, value > 0 else { throw APIError.invalidBody("\(name) is not an id of this server", field: name) }
        return value
    }

    /// A nested object's string field (`data.nickname`).
    func string(_ name: String, in parent: String) -> String? {
        guard case .object(let nested)? = object[parent], case .string(let text)? = nested[name] else { return nil }
        return text
    }
}

/// Any JSON value, read strictly (`1` is not `true`).
enum JSONValue {
    case null
    case boolean(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The class JSONSerialization gives booleans (an `NSNumber` `as? Bool` also takes 0 and 1).
    private static let booleanClass = ObjectIdentifier(type(of: NSNumber(value: true)))

    /// From what JSONSerialization returns.
    init(_ value: Any) {
        switch value {
        case let text as String: self = .string(text)
        case let number as NSNumber:
            if ObjectIdentifier(type(of: number)) == Self.booleanClass {
                self = .boolean(number.boolValue)
            } else if let integer = number as? Int {  // exact: 1.5 is not an Int, 2^62 stays whole
                self = .integer(integer)
            } else {
                self = .number(number.doubleValue)
            }
        case let array as [Any]: self = .array(array.map(JSONValue.init))
        case let object as [String: Any]: self = .object(object.mapValues(JSONValue.init))
        default: self = .null
        }
    }
}
