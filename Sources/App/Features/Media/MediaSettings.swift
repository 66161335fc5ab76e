import Domain
import Foundation
import HTTPServer

/// Where uploads go, how they are addressed, and what one account may upload.
public struct MediaSettings: Sendable {
    /// The directory of stored files (and of spooled upload bodies, in `incoming/`).
    public var directory: String
    /// Largest file accepted.
    public var maxUploadBytes: Int
    /// What `/media/{name}` is reached under from outside, e.g. `https://api.09market.kr`:
    /// upload answers carry `<base>/media/<name>`. Configured, never taken from a request's
    /// `Host` (a client could make stored URLs point anywhere).
    public var publicBaseURL: String
    /// Per-account rate and quota, and the store's reserve.
    public var limits: UploadLimits

    public init(directory: String, maxUploadBytes: Int = 10 << 20, publicBaseURL: String, limits: UploadLimits = UploadLimits()) {
        self.directory = directory
        self.maxUploadBytes = maxUploadBytes
        self.publicBaseURL = publicBaseURL
        self.limits = limits
    }

    /// A directory of its own under the system's temporary directory (created on the
    /// first upload), addressed as `http://127.0.0.1`: for tests and tools.
    public static func temporary() -> MediaSettings {
        MediaSettings(directory: NSTemporaryDirectory() + "market09-media-" + UUID().uuidString.lowercased(), publicBaseURL: "http://127.0.0.1")
    }

    /// Room for multipart's boundaries and part headers around the file.
    static let multipartOverhead = 64 << 10
}
