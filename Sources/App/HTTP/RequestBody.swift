import Foundation

extension HTTPRequest {
    /// Decodes the JSON body as `T`, answering 400 `invalid_body` (with the field, when
    /// one is to blame) for anything else.
    func decodeBody<T: Decodable>(_ type: T.Type) throws -> T {
        guard !body.isEmpty else { throw APIError.invalidBody("the request body must be a JSON object") }
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
