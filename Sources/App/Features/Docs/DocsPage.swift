import Cryptography
import Foundation
import HTTPServer

/// The HTML of `/docs` and the Content-Security-Policy that goes with it: Swagger UI's two
/// files pinned by their integrity hashes, and a starter that shows the reference, or,
/// when the files could not be loaded, says why and what to do (never a blank page
/// offline).
struct DocsPage {
    /// Where the two files are, as written into the tags.
    let assetsBase: String
    /// SRI hashes of `swagger-ui.css` and `swagger-ui-bundle.js`.
    let integrity: [String]

    /// Runs after the bundle's tag: the bundle either ran or failed to load by then.
    static let starter = """
        if (window.SwaggerUIBundle) {
          window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true });
        } else {
          document.getElementById("docs-unavailable").hidden = false;
        }
        """

    /// The page.
    var text: String {
        let base = Self.escapeAttribute(assetsBase)
        let crossOrigin = assetsBase.hasPrefix("/") ? "" : " crossorigin=\"anonymous\""
        return """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Market09 Server API</title>
            <link rel="stylesheet" href="\(base)/swagger-ui.css" integrity="\(integrity[0])"\(crossOrigin)>
            </head>
            <body>
            <div id="swagger-ui"></div>
            <div id="docs-unavailable" hidden>
            <h1>Market09 Server API</h1>
            <p>The interactive reference could not load its files (Swagger UI) from <code>\(base)</code>: this browser
            is offline, the address is blocked, or the files changed and no longer match their pinned hashes.</p>
            <p>The contract itself is here: <a href="/openapi.yaml">/openapi.yaml</a> and <a href="/openapi.json">/openapi.json</a>.</p>
            <p>To serve the reference without the CDN, start the server with <code>DOCS_ASSETS_DIR</code> set to a directory
            holding <code>swagger-ui.css</code> and <code>swagger-ui-bundle.js</code> of Swagger UI 5 (which reads OpenAPI 3.1), for
            example the copy in the PyPI package <code>drf-spectacular-sidecar</code>:
            <code>pip install --no-deps drf-spectacular-sidecar</code>, then
            <code>DOCS_ASSETS_DIR=$(python3 -c 'import importlib.util, os; print(os.path.join(os.path.dirname(importlib.util.find_spec("drf_spectacular_sidecar").origin), "static/drf_spectacular_sidecar/swagger-ui-dist"))')</code>.</p>
            </div>
            <script src="\(base)/swagger-ui-bundle.js" integrity="\(integrity[1])"\(crossOrigin)></script>
            <script>
            \(Self.starter)
            </script>
            </body>
            </html>

            """
    }

    /// Nothing runs but the pinned bundle (matched by its integrity hash) and the starter
    /// (by its own); styles from where the stylesheet is; data only from this server.
    func contentSecurityPolicy(styleSource: String) -> String {
        let starter = "'sha256-" + Data(SHA256.digest(Data(("\n" + Self.starter + "\n").utf8))).base64EncodedString() + "'"
        return "default-src 'none'; script-src \(starter) '\(integrity[1])'; style-src \(styleSource); img-src 'self' data:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// The SRI value (`sha256-…`) of `body`.
    static func integrity(of body: Data) -> String {
        "sha256-" + Data(SHA256.digest(body)).base64EncodedString()
    }

    /// Whether `value` is an SRI hash of a strong algorithm.
    static func isIntegrity(_ value: String) -> Bool {
        guard let dash = value.firstIndex(of: "-") else { return false }
        let algorithm = value[..<dash]
        let digest = value[value.index(after: dash)...]
        return ["sha256", "sha384", "sha512"].contains(String(algorithm)) && Data(base64Encoded: String(digest)) != nil
    }

    /// `https://host[:port]` of an absolute URL, for the policy.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return nil }
        return scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
    }

    private static func escapeAttribute(_ text: String) -> String {
        HTML.escape(text)
    }
}
