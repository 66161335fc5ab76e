import Domain
import Foundation
import HTTPServer
import Workers

/// `POST /v1/ingest/media`: an image as the raw body (what an n8n HTTP Request node sends
/// as "binary data"), stored like an upload and answered with its `/media/` URL. The feed's
/// automation copies each post's picture and each profile picture here, where the old
/// workflow copied them to Supabase Storage: Instagram's own image URLs expire within days.
struct IngestMedia: Sendable {
    let uploads: Uploads
    let admission: UploadAdmission
    let settings: MediaSettings
    let workers: BoundedWorkers

    /// The head: room in the store for the bytes declared (or the largest allowed).
    func admit(_ request: HTTPRequest) async throws {
        let declared = request.headers["Content-Length"].flatMap(Int.init).map { min(max(0, $0), settings.maxUploadBytes) } ?? settings.maxUploadBytes
        try await admission.admitRoom(bytes: declared)
    }

    /// Stores the body; 400 when it is empty, 415 when it is not a JPEG, PNG, HEIC or WebP.
    func store(_ request: HTTPRequest) async throws -> StoredMedia {
        guard (request.bodyFile?.bytes ?? request.body.count) > 0 else {
            throw APIError(status: 400, code: ErrorCodes.missingFile, message: "Send the image as the request body.")
        }
        let incoming = try await uploads.incomingFile()
        do {
            let source = request.bodyFile?.path
            let body = request.body
            try await workers.run {
                // The spooled body is on the store's disk: a second name for it is enough
                // (a copy if the spool is elsewhere).
                if let source {
                    unlink(incoming)
                    if link(source, incoming) != 0 { try FileManager.default.copyItem(atPath: source, toPath: incoming) }
                } else {
                    try body.write(to: URL(fileURLWithPath: incoming))
                }
            }
            return try await uploads.adoptFromService(incoming)
        } catch {
            unlink(incoming)
            throw error
        }
    }

    /// Where a stored file is served.
    func url(of media: StoredMedia) -> String {
        settings.publicBaseURL + "/media/" + media.name
    }
}
