import Foundation

/// A request body written to a file as it arrives (routes whose ``Reception`` spools), so a 10 MB
/// upload costs its file, not 10 MB of memory per request in flight. The file is created
/// private (0600) and removed when the exchange is released, after the response is sent.
/// Touched only by the engine thread that owns the connection (see ``Exchange``).
final class BodySpool {
    let path: String
    private let descriptor: Int32
    /// Bytes written.
    private(set) var bytes = 0
    /// Set when a write failed (a full disk): the request is answered 507.
    private(set) var failed = false

    /// Creates an empty file in `directory`; `nil` if it cannot.
    init?(directory: String) {
        var template = Array((directory + "/market09-body-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Appends `count` bytes; after a failure, drops them.
    func write(_ data: UnsafeRawPointer, count: Int) {
        guard !failed else { return }
        var offset = 0
        while offset < count {
            let written = Glibc.write(descriptor, data + offset, count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { failed = true; return }
            offset += written
        }
        bytes += count
    }

    deinit {
        close(descriptor)
        unlink(path)
    }
}

/// A spooled request body as the application sees it: read it from `path` while the
/// request is being handled; the transport removes the file afterwards.
public struct SpooledFile: Sendable {
    /// The file holding the body.
    public let path: String
    /// Its size in bytes.
    public let bytes: Int

    public init(path: String, bytes: Int) {
        self.path = path
        self.bytes = bytes
    }
}
