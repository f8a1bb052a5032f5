extension GS1 {
    /// Parses a GS1 Digital Link URI (GS1 Digital Link standard 1.x, uncompressed form):
    /// `https://id.gs1.org/01/09506000134352/10/ABC123?17=201225`. `nil` when `uri` is not one (not
    /// HTTP(S), or no primary key AI with a value in its path); else its elements checked as an
    /// element string's: the primary key and its qualifiers from the path, then the query's
    /// parameters whose name is an AI (others, `linkType` for one, are not elements). Values are
    /// percent-decoded; a malformed percent-encoding is a fault. A GTIN-8, -12 or -13 in `01` is
    /// given as GTIN-14 (zeros before it), as the standard says.
    public static func parse(digitalLink uri: String) -> Result<GS1ElementString, GS1Error>? {
        let bytes = Array(uri.utf8)
        let lower = bytes.prefix(8).map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
        let scheme: Int
        if lower.starts(with: Array("https://".utf8)) { scheme = 8 } else if lower.starts(with: Array("http://".utf8)) { scheme = 7 } else { return nil }
        let afterScheme = bytes[scheme...]
        let pathStart = afterScheme.firstIndex(of: UInt8(ascii: "/")) ?? afterScheme.endIndex
        let fragment = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        let queryStart = bytes[..<fragment].firstIndex(of: UInt8(ascii: "?")) ?? fragment
        guard pathStart < queryStart else { return nil }
        let segments = bytes[pathStart..<queryStart].split(separator: UInt8(ascii: "/"))
        guard let key = segments.indices.first(where: {
            GS1ApplicationIdentifiers.digitalLinkPrimaryKeys.contains(String(decoding: segments[$0], as: UTF8.self)) && $0 + 1 < segments.count
        }) else { return nil }

        var pairs: [(ai: String, value: ArraySlice<UInt8>)] = []
        var i = key
        while i < segments.count {
            let ai = String(decoding: segments[i], as: UTF8.self)
            guard i + 1 < segments.count else { return .failure(GS1Error(ai: ai, fault: "no value after it in the path")) }
            pairs.append((ai, segments[i + 1]))
            i += 2
        }
        if queryStart < fragment {
            for parameter in bytes[(queryStart + 1)..<fragment].split(separator: UInt8(ascii: "&")) {
                let parts = parameter.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                guard parts[0].count >= 2, parts[0].count <= 4, parts[0].allSatisfy({ (0x30...0x39).contains($0) }) else { continue }
                pairs.append((String(decoding: parts[0], as: UTF8.self), parts.count > 1 ? parts[1] : []))
            }
        }

        var elements: [GS1Element] = []
        for (ai, encoded) in pairs {
            guard let format = formats[ai] else { return .failure(GS1Error(ai: ai, fault: "unknown AI")) }
            guard var value = percentDecoded(encoded) else {
                return .failure(GS1Error(ai: ai, fault: "malformed percent-encoding in its value"))
            }
            if ai == "01", [8, 12, 13].contains(value.count) { value = Array(repeating: UInt8(ascii: "0"), count: 14 - value.count) + value }
            if let fault = format.fault(of: value[...]) { return .failure(GS1Error(ai: ai, fault: fault)) }
            elements.append(GS1Element(ai: ai, value: String(decoding: value, as: UTF8.self)))
        }
        return .success(GS1ElementString(elements: elements))
    }

    /// `%XX` sequences decoded (RFC 3986); `nil` for a `%` not followed by two hex digits.
    static func percentDecoded(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.endIndex,
                      let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else { return nil }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}
