import Domain
import Foundation
import HTTPServer
import Persistence
import Workers

/// `POST /v1/uploads`: an image in a `multipart/form-data` part named `file`, copied from
/// the spooled body to the store without holding it in memory.
struct UploadsController: Sendable {
    let uploads: Uploads
    let admission: UploadAdmission
    let settings: MediaSettings
    let signedIn: AuthenticatedRoutes
    let workers: BoundedWorkers

    var routes: [Route] {
        [
            signedIn.permanent("POST", "/uploads") { request, context, user in
                let media = try await store(request, by: user)
                return .json(UploadResponse(url: url(of: media), media: media), status: 201)
            }.receiving(reception(admission: { try await admit($0) })),
        ]
    }

    /// How upload routes receive their bodies: spooled to a file, within the upload limit,
    /// once `admission` let the head in.
    func reception(admission: @escaping Reception.Admission) -> Reception {
        Reception(maxBodyBytes: settings.maxUploadBytes + MediaSettings.multipartOverhead, spooled: true, admission: admission)
    }

    /// The head of an upload: a permanent user's token, then the account's limits and the
    /// store's room for the bytes it declares (a body without a length counts as the
    /// largest allowed). `nil`: let the body in.
    func admit(_ request: HTTPRequest) async throws -> HTTPResponse? {
        let user = try signedIn.authenticator.principal(for: request).permanent()
        let largest = settings.maxUploadBytes + MediaSettings.multipartOverhead
        let declared = request.headers["Content-Length"].flatMap(Int.init).map { min(max(0, $0), largest) } ?? largest
        try await admission.admit(user, bytes: declared)
        return nil
    }

    /// Copies the request's `file` part into the store (shared with `/functions/v1/upload`).
    func store(_ request: HTTPRequest, by user: PermanentPrincipal) async throws -> StoredMedia {
        let boundary = try Self.boundary(request)
        let incoming = try await uploads.incomingFile()
        do {
            let part = try await copyFilePart(request, boundary: boundary, to: incoming)
            guard part.bytes > 0 else { throw APIError(status: 400, code: ErrorCodes.missingFile, message: "The file part is empty.", field: "file") }
            return try await uploads.adopt(incoming, by: user)
        } catch {
            unlink(incoming)
            throw error
        }
    }

    /// Where a stored file is served.
    func url(of media: StoredMedia) -> String {
        settings.publicBaseURL + "/media/" + media.name
    }

    private static func boundary(_ request: HTTPRequest) throws -> [UInt8] {
        do {
            return try Multipart.boundary(contentType: request.headers["Content-Type"])
        } catch Multipart.Failure.notMultipart {
            throw APIError(status: 415, code: ErrorCodes.unsupportedMediaType, message: "Send the file as multipart/form-data in a part named file.")
        } catch {
            throw APIError(status: 400, code: ErrorCodes.invalidMultipart, message: "The multipart/form-data content type has no usable boundary.")
        }
    }

    private func copyFilePart(_ request: HTTPRequest, boundary: [UInt8], to incoming: String) async throws -> Multipart.Part {
        let limit = settings.maxUploadBytes
        // Handlers called without the transport (tests of the pipeline) bring the body in memory.
        let source = request.bodyFile?.path
        let body = request.body
        do {
            return try await workers.run {
                let destination = open(incoming, O_WRONLY | O_TRUNC | O_CLOEXEC)
                guard destination >= 0 else { throw MediaStorageError(message: "cannot write \(incoming)") }
                defer { close(destination) }
                if let source { return try Multipart.copyPart(named: "file", boundary: boundary, from: source, to: destination, limit: limit) }
                let spooled = incoming + ".body"
                defer { unlink(spooled) }
                try body.write(to: URL(fileURLWithPath: spooled))
                return try Multipart.copyPart(named: "file", boundary: boundary, from: spooled, to: destination, limit: limit)
            }
        } catch let failure as Multipart.Failure {
            switch failure {
            case .missingPart: throw APIError(status: 400, code: ErrorCodes.missingFile, message: "No part named file.", field: "file")
            case .partTooLarge: throw APIError(status: 413, code: ErrorCodes.fileTooLarge, message: "The file exceeds \(limit) bytes.", field: "file")
            case .malformed(let reason): throw APIError(status: 400, code: ErrorCodes.invalidMultipart, message: "The multipart body is malformed: \(reason).")
            case .notMultipart, .noBoundary: throw APIError(status: 400, code: ErrorCodes.invalidMultipart, message: "The body is not multipart/form-data.")
            }
        }
    }
}

/// `{url, content_type, bytes, width?, height?}`.
struct UploadResponse: JSONWritable {
    let url: String
    let media: StoredMedia

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.field("url", url)
            json.field("content_type", media.kind.contentType)
            json.field("bytes", media.bytes)
            if let size = media.size {
                json.field("width", size.width)
                json.field("height", size.height)
            }
        }
    }
}
