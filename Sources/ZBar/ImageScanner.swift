import CZBar
import Media

/// A code zbar found in one image.
public struct DecodedSymbol: Sendable, Hashable {
    public var symbology: Symbology
    /// The payload exactly as encoded (zbar runs with `ZBAR_CFG_BINARY`, so nothing is transcoded).
    public var data: [UInt8]
    /// The payload as zbar decodes it to text, as `zbarimg` prints it: for QR, zbar's own
    /// conversion (ECI honoured, else its guess among Shift_JIS, ISO-8859-1 and UTF-8); for the
    /// other symbologies, whose data zbar gives as ISO-8859-1 (ASCII in practice), those bytes.
    /// `nil` when zbar could not convert a QR payload.
    public var text: String?
    /// zbar's relative confidence; higher is better (for QR it is 1).
    public var quality: Int
    public var orientation: SymbolOrientation
    /// The outline zbar reports, in image pixels (for QR the four finder corners).
    public var points: [(x: Int, y: Int)]
    /// The AIM symbology identifier, derived from the symbology and zbar's modifiers
    /// (`Symbology.aimIdentifier(gs1:aim:)`); zbar has no call for it.
    public var symbologyIdentifier: String?
    /// An EAN-13, UPC-A or UPC-E code's add-on (2 or 5 digits) zbar read beside it as an EAN-2 or
    /// EAN-5 symbol of its own (`ScannerSettings.eanAddOn`, `AddOnJoin`): `data` is then the main
    /// code's digits, a space and these.
    public var addOn: [UInt8]?

    public init(symbology: Symbology, data: [UInt8], text: String?, quality: Int, orientation: SymbolOrientation,
                points: [(x: Int, y: Int)], symbologyIdentifier: String? = nil, addOn: [UInt8]? = nil) {
        self.symbology = symbology; self.data = data; self.text = text; self.quality = quality
        self.orientation = orientation; self.points = points; self.symbologyIdentifier = symbologyIdentifier
        self.addOn = addOn
    }

    public static func == (a: DecodedSymbol, b: DecodedSymbol) -> Bool {
        a.symbology == b.symbology && a.data == b.data && a.text == b.text && a.quality == b.quality
            && a.symbologyIdentifier == b.symbologyIdentifier && a.addOn == b.addOn
            && a.orientation == b.orientation && a.points.elementsEqual(b.points, by: { $0 == $1 })
    }

    public func hash(into h: inout Hasher) {
        h.combine(symbology); h.combine(data)
    }
}

/// One zbar image scanner (`zbar_image_scanner_t`); not thread-safe, so one per scanning thread.
///
/// zbar's inter-frame result cache stays off: each scan is independent, and duplicate
/// suppression is done on frame time by the pipeline. A second scanner, QR only and without
/// `ZBAR_CFG_BINARY`, gives zbar's text for QR payloads that are not plain ASCII (see `scan`).
public final class ImageScanner {
    private var scanner: OpaquePointer
    public private(set) var settings: ScannerSettings

    public init(settings: ScannerSettings = ScannerSettings()) {
        scanner = ImageScanner.makeScanner(settings)
        self.settings = settings
    }

    deinit { zbar_image_scanner_destroy(scanner) }

    /// Replaces the settings; takes effect on the next scan.
    ///
    /// The zbar scanner is recreated, so a value the new settings leave `nil` (a
    /// length limit, say) is back at zbar's default rather than kept from the old one.
    public func reconfigure(_ settings: ScannerSettings) {
        guard settings != self.settings else { return }
        let fresh = ImageScanner.makeScanner(settings)
        zbar_image_scanner_destroy(scanner)
        scanner = fresh
        self.settings = settings
    }

    /// Replaces the zbar scanner with a fresh one, so nothing of one frame reaches the next.
    ///
    /// zbar's 1-D decoders keep state across `zbar_scan_image` calls even with the result cache
    /// off: after some sequences of EAN-13 frames, a frame reports the previous frame's EAN-13 as
    /// well as its own (`zbarimg a.pgm b.pgm` shows it too). A fresh scanner per frame costs far
    /// less than a scan.
    private func renew() {
        let fresh = ImageScanner.makeScanner(settings)
        zbar_image_scanner_destroy(scanner)
        scanner = fresh
    }

    /// A new zbar scanner (`zbar_image_scanner_create`) with `c` applied to zbar's defaults.
    private static func makeScanner(_ c: ScannerSettings) -> OpaquePointer {
        guard let scanner = zbar_image_scanner_create() else {
            fatalError("zbar_image_scanner_create returned NULL (out of memory)")
        }
        apply(c, to: scanner)
        return scanner
    }

    private static func apply(_ c: ScannerSettings, to scanner: OpaquePointer) {
        // Everything off, then the chosen symbologies on: zbar enables most decoders by default.
        // (Off for ZBAR_NONE also turns off zbar's own composite of one EAN and one add-on per
        // image, which keeps no position: `AddOnJoin` joins them.) EAN-2 and EAN-5 are on
        // whenever add-ons are read with their main codes.
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0)
        let enabled = c.symbologies.union(AddOnJoin.readsAddOns(c) ? EANAddOn.addOnSymbologies : [])
        for s in Symbology.allCases {
            guard let type = s.zbarType else { continue }
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_ENABLE, enabled.contains(s) ? 1 : 0)
            guard enabled.contains(s) else { continue }
            zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_BINARY, 1)
            if let v = c.settings[s]?.minLength { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_MIN_LEN, Int32(v)) }
            if let v = c.settings[s]?.maxLength { zbar_image_scanner_set_config(scanner, type, ZBAR_CFG_MAX_LEN, Int32(v)) }
        }
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_TEST_INVERTED, c.testInverted ? 1 : 0)
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_X_DENSITY, Int32(c.xDensity))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_Y_DENSITY, Int32(c.yDensity))
        zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_POSITION, 1)
        zbar_image_scanner_enable_cache(scanner, 0)
    }

    /// Scans an 8-bit greyscale plane in place and returns every code found.
    ///
    /// zbar has no stride, so the plane is described as `bytesPerLine` pixels wide and cropped
    /// to `width` (and further to `region`, the rect of interest). Points are in plane pixels.
    /// The bytes come from `zbar_scan_image` in binary mode. When a QR payload holds a byte
    /// past ASCII, where the character set matters, the same image is scanned again by a QR-only
    /// scanner without `ZBAR_CFG_BINARY` for zbar's text (each text goes to the QR code nearest
    /// its position); ASCII payloads, the common case, cost no second pass. EAN-2 and EAN-5 add-ons
    /// are joined to their main codes as `settings.eanAddOn` says (`AddOnJoin`).
    /// - Precondition: `luma.count >= bytesPerLine * height`.
    public func scan(luma: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerLine: Int,
                     region: PixelRect? = nil) -> [DecodedSymbol] {
        precondition(bytesPerLine >= width && luma.count >= bytesPerLine * height, "luma plane smaller than its geometry")
        guard width > 0, height > 0, let base = luma.baseAddress, let image = zbar_image_create() else { return [] }
        defer {
            zbar_image_destroy(image)
            renew()
        }
        zbar_image_set_format(image, czbar_fourcc(0x59, 0x38, 0x30, 0x30))  // "Y800"
        zbar_image_set_size(image, UInt32(bytesPerLine), UInt32(height))
        let crop = (region ?? PixelRect(x: 0, y: 0, width: width, height: height)).clamped(width: width, height: height)
        guard crop.width > 0, crop.height > 0 else { return [] }
        zbar_image_set_crop(image, UInt32(crop.x), UInt32(crop.y), UInt32(crop.width), UInt32(crop.height))
        zbar_image_set_data(image, base, UInt(bytesPerLine * height), nil)
        guard zbar_scan_image(scanner, image) > 0 else { return [] }

        var found = Self.symbols(of: image).compactMap { symbol -> DecodedSymbol? in
            guard let symbology = Symbology(zbarType: symbol.type) else { return nil }
            return DecodedSymbol(symbology: symbology, data: symbol.data,
                                 text: String(String.UnicodeScalarView(symbol.data.map(Unicode.Scalar.init))),
                                 quality: symbol.quality, orientation: symbol.orientation, points: symbol.points,
                                 symbologyIdentifier: symbology.aimIdentifier(modifiers: symbol.modifiers))
        }
        let needsText = found.indices.filter { found[$0].symbology == .qrcode && found[$0].data.contains { $0 >= 0x80 } }
        if !needsText.isEmpty {
            let texts = qrTexts(of: image)
            for i in needsText { found[i].text = Self.nearest(to: found[i].points, in: texts)?.text }
        }
        return settings.eanAddOn == .ignore ? found : AddOnJoin.joined(found, requireAddOn: settings.eanAddOn == .require)
    }

    /// zbar's text of every QR code in `image` (a second `zbar_scan_image` by the QR-only scanner without
    /// `ZBAR_CFG_BINARY`, a scanner made for the pass and destroyed after it), with its points; `nil` text where zbar's data is not UTF-8.
    private func qrTexts(of image: OpaquePointer) -> [(text: String?, points: [(x: Int, y: Int)])] {
        let qr = Self.makeScanner(ScannerSettings(symbologies: [.qrcode], testInverted: settings.testInverted,
                                                  xDensity: settings.xDensity, yDensity: settings.yDensity))
        defer { zbar_image_scanner_destroy(qr) }
        zbar_image_scanner_set_config(qr, ZBAR_QRCODE, ZBAR_CFG_BINARY, 0)
        guard zbar_scan_image(qr, image) > 0 else { return [] }
        return Self.symbols(of: image).filter { $0.type == ZBAR_QRCODE }
            .map { (text: String(validating: $0.data, as: UTF8.self), points: $0.points) }
    }

    /// The entry whose points' centre is nearest the centre of `points`.
    private static func nearest<T>(to points: [(x: Int, y: Int)], in candidates: [(text: T, points: [(x: Int, y: Int)])])
        -> (text: T, points: [(x: Int, y: Int)])? {
        func centre(_ p: [(x: Int, y: Int)]) -> (Double, Double) {
            let n = Double(max(p.count, 1))
            return (Double(p.reduce(0) { $0 + $1.x }) / n, Double(p.reduce(0) { $0 + $1.y }) / n)
        }
        let (x, y) = centre(points)
        return candidates.min { a, b in
            let (ax, ay) = centre(a.points), (bx, by) = centre(b.points)
            return (ax - x) * (ax - x) + (ay - y) * (ay - y) < (bx - x) * (bx - x) + (by - y) * (by - y)
        }
    }

    /// Every symbol zbar attached to `image` by its last scan (`zbar_image_first_symbol`, `zbar_symbol_next`,
    /// `zbar_symbol_get_*`, `zbar_symbol_get_modifiers` too), copied out.
    private static func symbols(of image: OpaquePointer)
        -> [(type: zbar_symbol_type_t, data: [UInt8], quality: Int, orientation: SymbolOrientation, points: [(x: Int, y: Int)], modifiers: UInt32)] {
        var found: [(type: zbar_symbol_type_t, data: [UInt8], quality: Int, orientation: SymbolOrientation,
                     points: [(x: Int, y: Int)], modifiers: UInt32)] = []
        var symbol = zbar_image_first_symbol(image)
        while let s = symbol {
            defer { symbol = zbar_symbol_next(s) }
            let length = Int(zbar_symbol_get_data_length(s))
            let data: [UInt8] = zbar_symbol_get_data(s).map { p in
                p.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
            } ?? []
            var points: [(x: Int, y: Int)] = []
            let n = zbar_symbol_get_loc_size(s)
            points.reserveCapacity(Int(n))
            for i in 0..<n {
                points.append((Int(zbar_symbol_get_loc_x(s, i)), Int(zbar_symbol_get_loc_y(s, i))))
            }
            found.append((zbar_symbol_get_type(s), data, Int(zbar_symbol_get_quality(s)),
                          SymbolOrientation(zbar_symbol_get_orientation(s)), points, UInt32(zbar_symbol_get_modifiers(s))))
        }
        return found
    }
}
