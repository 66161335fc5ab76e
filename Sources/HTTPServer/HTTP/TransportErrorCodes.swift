/// The error codes the transport answers with itself, before or around any handler: the
/// one place they are written (the product's own are App's `ErrorCodes`, which reuses
/// these). A test reads the sources for codes written inline.
public enum TransportErrorCodes {
    public static let notFound = "not_found"
    public static let methodNotAllowed = "method_not_allowed"
    public static let methodNotImplemented = "method_not_implemented"
    public static let invalidParameter = "invalid_parameter"
    public static let invalidBody = "invalid_body"
    public static let bodyTooLarge = "body_too_large"
    public static let headersTooLarge = "headers_too_large"
    public static let uriTooLong = "uri_too_long"
    public static let ambiguousFraming = "ambiguous_framing"
    public static let insufficientStorage = "insufficient_storage"
    public static let shuttingDown = "shutting_down"
    public static let internalError = "internal_error"
}
