import Foundation

/// Images by their first bytes (what the sniffer and the size readers look at) and the
/// multipart bodies the app sends them in; shared by the upload, import and memory tests.
public enum ImageFixtures {
    /// A PNG's signature and IHDR (what the sniffer and the size reader look at), then filler.
    public static func png(width: Int, height: Int, filler: Int = 100) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
        for value in [width, height] { bytes += [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        bytes += [8, 6, 0, 0, 0] + [UInt8](repeating: 0x42, count: filler)
        return Data(bytes)
    }

    /// A JPEG with an APP0 segment, then a baseline SOF0 of `width` × `height`.
    public static func jpeg(width: Int, height: Int) -> Data {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xC0, 0x00, 0x11, 0x08, UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), 3]
        bytes += [UInt8](repeating: 0x11, count: 200) + [0xFF, 0xD9]
        return Data(bytes)
    }

    public static let heic = Data([0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8) + [UInt8](repeating: 7, count: 64))
    public static let webp = Data(Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0, 0, 0, 0, 0]
        + [0x3F, 0x01, 0x00, 0xEF, 0x00, 0x00] + [UInt8](repeating: 0, count: 40))
    public static let zipArchive = Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 60))

    /// A multipart body: `parts` as (name, filename, content type, bytes).
    public static func multipart(_ parts: [(String, String?, String?, Data)], boundary: String = "b0undary-Xy", preamble: String = "",
                          close: Bool = true) -> Data {
        var body = Data(preamble.utf8)
        for (name, filename, type, content) in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\""
            if let filename { head += "; filename=\"\(filename)\"" }
            head += "\r\n"
            if let type { head += "Content-Type: \(type)\r\n" }
            body += Data((head + "\r\n").utf8) + content + Data("\r\n".utf8)
        }
        if close { body += Data("--\(boundary)--\r\nepilogue".utf8) }
        return body
    }
}
