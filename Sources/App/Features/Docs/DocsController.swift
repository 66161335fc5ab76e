import Foundation
import HTTPServer

/// The contract where API users look for it: `GET /openapi.yaml` (the file as written),
/// `GET /openapi.json` (the same document as JSON, converted once at start-up) and
/// `GET /docs`, an interactive reference (Swagger UI) whose assets come from a CDN by
/// default or, offline, from a local copy served under `/docs/assets/`.
///
/// The page loads third-party scripts on the API's origin, so it pins them: each tag
/// carries its Subresource Integrity hash, and the page's Content-Security-Policy runs no
/// script but those (by hash) and its own inline starter. When the files cannot be loaded
/// (offline, a firewall) the page says so and what to do, instead of staying blank.
///
/// Everything is built at start-up and answered on the engine thread: no file or
/// database I/O per request, gzip done once (the UI's script is 1.4 MB, 0.4 MB gzipped).
public struct DocsController: Sendable {
    /// Where the Swagger UI's files come from.
    public enum Assets: Sendable {
        /// A base URL holding `swagger-ui.css` and `swagger-ui-bundle.js` (a CDN), with the
        /// SRI hashes of the two files (`sha384-…`), in that order.
        case remote(String, integrity: [String])
        /// A local directory holding them, served under `/docs/assets/`.
        case directory(String)

        /// swagger-ui-dist 5.17.14 on jsDelivr, the version pinned so the page does not
        /// change under users, with its files' published SRI hashes.
        public static let pinnedCDN = Assets.remote("https://cdn.jsdelivr.net/npm/swagger-ui-dist@5.17.14", integrity: [
            "sha384-wxLW6kwyHktdDGr6Pv1zgm/VGJh99lfUbzSn6HNHBENZlCN7W602k9VkGdxuFvPn",
            "sha384-wmyclcVGX/WhUkdkATwhaK1X1JtiNrr2EoYJ+diV3vj4v6OC5yCeSu+yW13SYJep",
        ])
    }

    static let assetNames = ["swagger-ui.css", "swagger-ui-bundle.js"]

    private let yaml: StaticAsset
    private let json: StaticAsset
    private let page: StaticAsset
    private let localAssets: [String: StaticAsset]

    /// Reads the contract (`openapi.yaml`'s text) and, for a local copy, the UI's files.
    /// Throws when the contract is outside the YAML this server reads or a file is missing.
    public init(contract: String, assets: Assets) throws {
        let document = try YAMLDocument.parse(contract)
        yaml = StaticAsset(contentType: "application/yaml; charset=utf-8", body: Data(contract.utf8), cacheControl: "no-cache")
        json = StaticAsset(contentType: HTTPResponse.jsonContentType, body: JSONWriter.encode(document, capacity: contract.utf8.count),
                           cacheControl: "no-cache")
        let base: String
        let integrity: [String]
        let styleSource: String
        switch assets {
        case .remote(let url, let hashes):
            guard hashes.count == 2, hashes.allSatisfy(DocsPage.isIntegrity) else {
                throw DocsError(description: "the docs assets' integrity must be two SRI hashes (sha256-, sha384- or sha512-), the CSS's then the script's")
            }
            base = url.hasSuffix("/") ? String(url.dropLast()) : url
            integrity = hashes
            localAssets = [:]
            styleSource = DocsPage.origin(of: base) ?? "'self'"
        case .directory(let path):
            base = "/docs/assets"
            var files: [String: StaticAsset] = [:]
            var hashes: [String] = []
            for name in Self.assetNames {
                let url = URL(fileURLWithPath: path).appendingPathComponent(name)
                guard let body = FileManager.default.contents(atPath: url.path) else {
                    throw DocsError(description: "\(url.path) is missing (DOCS_ASSETS_DIR must hold \(Self.assetNames.joined(separator: " and ")))")
                }
                let type = name.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8"
                files[name] = StaticAsset(contentType: type, body: body, cacheControl: "public, max-age=86400")
                hashes.append(DocsPage.integrity(of: body))
            }
            localAssets = files
            integrity = hashes
            styleSource = "'self'"
        }
        let html = DocsPage(assetsBase: base, integrity: integrity)
        var headers = [("Content-Security-Policy", html.contentSecurityPolicy(styleSource: styleSource)),
                       ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer")]
        headers.append(("X-Frame-Options", "DENY"))
        page = StaticAsset(contentType: "text/html; charset=utf-8", body: Data(html.text.utf8), cacheControl: "no-cache", headers: headers)
    }

    /// The routes: the contract in both forms, the page, and the local assets if any.
    public var routes: [Route] {
        var routes = [
            Route(immediate: "GET", "/openapi.yaml") { [yaml] request in yaml.response(to: request) },
            Route(immediate: "GET", "/openapi.json") { [json] request in json.response(to: request) },
            Route(immediate: "GET", "/docs") { [page] request in page.response(to: request) },
        ]
        if !localAssets.isEmpty {
            routes.append(Route(immediate: "GET", "/docs/assets/{file}") { [localAssets] request in
                guard let asset = localAssets[request.pathParameters["file"] ?? ""] else {
                    return .notFound(request.path)
                }
                return asset.response(to: request)
            })
        }
        return routes
    }
}

/// Why the docs could not be prepared.
public struct DocsError: Error, CustomStringConvertible {
    public let description: String
}

/// A body fixed at start-up, with its entity tag and gzipped form computed once.
struct StaticAsset: Sendable {
    let contentType: String
    let body: Data
    let gzipped: Data?
    let tag: String
    let cacheControl: String
    let headers: [(String, String)]

    init(contentType: String, body: Data, cacheControl: String, headers: [(String, String)] = []) {
        self.contentType = contentType
        self.body = body
        self.cacheControl = cacheControl
        self.headers = headers
        tag = "\"" + EntityTag.hex(EntityTag.hash(body)) + "\""
        gzipped = body.count >= ContentCoding.minimumSize ? GzipEncoders(level: 9).compress(body) : nil
    }

    /// 200 with the body (gzipped when the client accepts it), or 304 for a known tag.
    func response(to request: HTTPRequest) -> HTTPResponse {
        let gzip = gzipped != nil && ContentCoding.acceptsGzip(request.headers.values(of: "Accept-Encoding"))
        let tag = gzip ? "W/" + tag : tag
        var response: HTTPResponse
        if EntityTag.matches(request.headers.values(of: "If-None-Match"), tag) {
            response = HTTPResponse(status: 304)
        } else {
            response = HTTPResponse(status: 200, headers: HTTPHeaders([("Content-Type", contentType)]), body: gzip ? gzipped! : body)
            if gzip { response.headers.add("Content-Encoding", "gzip") }
        }
        if gzipped != nil { response.headers.add("Vary", "Accept-Encoding") }
        response.headers.add("ETag", tag)
        response.headers.add("Cache-Control", cacheControl)
        for (name, value) in headers { response.headers.add(name, value) }
        return response
    }
}
