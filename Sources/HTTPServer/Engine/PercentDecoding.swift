/// libmicrohttpd's unescape callback (`MHD_OPTION_UNESCAPE_CALLBACK`), installed by
/// ``MicroHTTPServer``.
///
/// Percent-decodes a path or query value in place, except `%00`, which stays as it is.
/// libmicrohttpd's own decoder writes a NUL byte there, and the C string we read ends at
/// it: `/v1/posts/%00` became `/v1/posts/` (the feed). Kept literal, it matches no route.
let unescapeKeepingNUL: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
    guard let text else { return 0 }
    func hex(_ byte: CChar) -> UInt8? {
        switch UInt8(bitPattern: byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt8(bitPattern: byte) - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt8(bitPattern: byte) - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt8(bitPattern: byte) - UInt8(ascii: "A") + 10
        default: nil
        }
    }
    var read = 0
    var write = 0
    while text[read] != 0 {
        if text[read] == CChar(UInt8(ascii: "%")), text[read + 1] != 0, text[read + 2] != 0,
           let high = hex(text[read + 1]), let low = hex(text[read + 2]), high | low != 0 {
            text[write] = CChar(bitPattern: high << 4 | low)
            read += 3
        } else {
            text[write] = text[read]
            read += 1
        }
        write += 1
    }
    text[write] = 0
    return write
}
