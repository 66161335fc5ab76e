import Foundation

/// A JSON object request body whose fields are its coding keys.
public protocol JSONRequestBody: Decodable {
    associatedtype CodingKeys: CodingKey & CaseIterable
}

extension HTTPRequest {
    /// Decodes the JSON body as `T`, answering 400 `invalid_body` (with the field, when
    /// one is to blame) for anything else.
    public func decodeBody<T: JSONRequestBody>(_ type: T.Type) throws -> T {
        guard !body.isEmpty else { throw APIError.invalidBody("the request body must be a JSON object") }
        // A field of T sent as `null` is refused rather than read as absent: the contract
        // types no field as nullable, and a PATCH could not tell "leave it" from "clear
        // it". Fields T does not have are ignored, nulls included.
        if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
           let field = T.CodingKeys.allCases.map(\.stringValue).first(where: { object[$0] is NSNull }) {
            throw APIError.invalidBody("\(field) must not be null; omit it instead", field: field)
        }
        do {
            return try JSON.decoder.decode(T.self, from: body)
        } catch DecodingError.keyNotFound(let key, _) {
            throw APIError.invalidBody("\(key.stringValue) is required", field: key.stringValue)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError.invalidBody("\(field.isEmpty ? "the body" : field) has the wrong type", field: field.isEmpty ? nil : field)
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw APIError.invalidBody("\(field) is not valid", field: field)
        } catch {
            throw APIError.invalidBody("the request body is not valid JSON")
        }
    }
}
