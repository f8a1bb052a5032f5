import Media

extension MachineReadableCodeObject {
    /// This code without its EAN/UPC add-on when the add-on, with its quiet zone, may not lie
    /// wholly inside the frame: a 5-digit add-on cut by the edge reads as a 2-digit one, or not
    /// at all. A 2-digit add-on is kept only where a 5-digit one would have fitted too.
    ///
    /// The outline (both libraries give it with the add-on) runs from the main symbol's start to
    /// the add-on's end; its length over the symbol's modules (main, a 9-module gap, the add-on)
    /// is the module width, and the 5 modules of quiet zone after the add-on (27 more behind a
    /// 2-digit one) must lie inside the frame at both of the outline's end corners.
    func droppingAddOnAtFrameEdge() -> MachineReadableCodeObject {
        guard let addOn, corners.count == 4, frame.width > 0, frame.height > 0 else { return self }
        let mainModules: Double = switch symbology {
        case .ean8: 67
        case .upce: 51
        default: 95
        }
        let addOnModules: Double = addOn.count == 2 ? 20 : 47
        let start = (x: Double(corners[0].x + corners[1].x) / 2, y: Double(corners[0].y + corners[1].y) / 2)
        let end = (x: Double(corners[2].x + corners[3].x) / 2, y: Double(corners[2].y + corners[3].y) / 2)
        let length = ((end.x - start.x) * (end.x - start.x) + (end.y - start.y) * (end.y - start.y)).squareRoot()
        guard length > 0 else { return self }
        let module = length / (mainModules + 9 + addOnModules)
        let beyond = (5 + (addOn.count == 2 ? 27 : 0)) * module
        let step = (x: (end.x - start.x) / length * beyond, y: (end.y - start.y) / length * beyond)
        let inside = [corners[2], corners[3]].allSatisfy { corner in
            let (x, y) = (Double(corner.x) + step.x, Double(corner.y) + step.y)
            return x >= 0 && y >= 0 && x <= Double(frame.width - 1) && y <= Double(frame.height - 1)
        }
        guard !inside else { return self }
        var code = self
        code.data = mainData
        code.text = text.map { String($0.dropLast(addOn.count + 1)) }
        code.addOn = nil
        if code.symbologyIdentifier == "]E3" { code.symbologyIdentifier = symbology == .ean8 ? "]E4" : "]E0" }
        return code
    }
}
