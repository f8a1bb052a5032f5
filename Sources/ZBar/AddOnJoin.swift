import Media

/// zbar's EAN-2 and EAN-5 symbols joined to the EAN-13, UPC-A or UPC-E code they follow.
///
/// zbar reads an add-on as a symbol of its own (its composite of one EAN and one add-on per image
/// has no position). An add-on belongs to the main code whose scan lines it shares and whose end
/// it follows, within the main code's length and a half along its reading direction (the add-on is
/// 7 to 12 modules after a main code of 51 to 95, and 20 or 47 long); of several, the nearest.
enum AddOnJoin {
    /// Whether `settings` has zbar read add-ons to join: `ean.addon` is not `ignore` and a main
    /// symbology is requested.
    static func readsAddOns(_ settings: ScannerSettings) -> Bool {
        settings.eanAddOn != .ignore && !settings.symbologies.isDisjoint(with: EANAddOn.mainSymbologies)
    }

    /// `symbols` with each add-on joined to its main code (`data` the main code's, a space and the
    /// add-on's; symbology identifier `]E3`, ISO/IEC 15424's EAN/UPC with add-on; the points of
    /// both; the main code's quality); add-ons that follow no main code are dropped, and with
    /// `requireAddOn` main codes without one too.
    static func joined(_ symbols: [DecodedSymbol], requireAddOn: Bool) -> [DecodedSymbol] {
        let addOns = symbols.indices.filter { EANAddOn.addOnSymbologies.contains(symbols[$0].symbology) }
        let mains = symbols.indices.filter { EANAddOn.mainSymbologies.contains(symbols[$0].symbology) }
        guard !addOns.isEmpty || requireAddOn else { return symbols }
        // Each add-on to its nearest main code; each main code keeps its nearest add-on.
        var chosen: [Int: (addOn: Int, gap: Int)] = [:]
        for a in addOns {
            let candidates = mains.compactMap { m in gap(from: symbols[m], to: symbols[a]).map { (m, $0) } }
            guard let (m, gap) = candidates.min(by: { $0.1 < $1.1 }) else { continue }
            if let other = chosen[m], other.gap <= gap { continue }
            chosen[m] = (a, gap)
        }
        var result: [DecodedSymbol] = []
        for i in symbols.indices where !addOns.contains(i) {
            guard let (a, _) = chosen[i] else {
                if !(requireAddOn && mains.contains(i)) { result.append(symbols[i]) }
                continue
            }
            var main = symbols[i]
            let addOn = symbols[a].data
            main.data = EANAddOn.joined(main.data, addOn)
            main.text = String(decoding: main.data, as: UTF8.self)
            main.points += symbols[a].points
            main.symbologyIdentifier = "]E3"
            main.addOn = addOn
            result.append(main)
        }
        return result
    }

    /// How far past `main`'s end `addOn` ends, along `main`'s reading direction (pixels); `nil`
    /// when it does not follow it: not on its scan lines, not past its end, or farther than its
    /// length and a half.
    static func gap(from main: DecodedSymbol, to addOn: DecodedSymbol) -> Int? {
        guard !main.points.isEmpty, !addOn.points.isEmpty else { return nil }
        // Along (u) and across (v) the reading direction of `main`.
        func axes(_ p: (x: Int, y: Int)) -> (u: Int, v: Int) {
            switch main.orientation {
            case .down: (-p.x, p.y)
            case .right: (p.y, p.x)
            case .left: (-p.y, p.x)
            case .up, .unknown: (p.x, p.y)
            }
        }
        let m = main.points.map(axes), a = addOn.points.map(axes)
        let mu0 = m.map(\.u).min()!, mu1 = m.map(\.u).max()!, mv0 = m.map(\.v).min()!, mv1 = m.map(\.v).max()!
        let au1 = a.map(\.u).max()!, av0 = a.map(\.v).min()!, av1 = a.map(\.v).max()!
        let length = max(mu1 - mu0, 1), slack = max(8, length / 10)
        guard av0 <= mv1 + slack, av1 >= mv0 - slack, au1 > mu1, au1 - mu1 <= length * 3 / 2 + slack else { return nil }
        return au1 - mu1
    }
}
