/// The module grid of one symbol while it is built: which modules are dark and which
/// belong to function patterns (finders, separators, timing, alignment, format and version
/// information, dark module) and so are never masked or given data.
struct QRMatrix: Sendable {
    let version: Int
    let size: Int
    /// Row-major: index `y * size + x`.
    var dark: [Bool]
    var isFunction: [Bool]

    /// A grid with every function pattern drawn and the format areas reserved (light).
    init(version: Int) {
        self.version = version
        size = QRSpec.size(version: version)
        dark = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawFunctionPatterns()
    }

    func isDark(x: Int, y: Int) -> Bool { dark[y * size + x] }

    mutating func setFunction(x: Int, y: Int, dark isDark: Bool) {
        dark[y * size + x] = isDark
        isFunction[y * size + x] = true
    }

    private mutating func drawFunctionPatterns() {
        // Timing patterns on row 6 and column 6 (finders overwrite their ends).
        for i in 0..<size {
            setFunction(x: 6, y: i, dark: i % 2 == 0)
            setFunction(x: i, y: 6, dark: i % 2 == 0)
        }
        drawFinder(centreX: 3, centreY: 3)
        drawFinder(centreX: size - 4, centreY: 3)
        drawFinder(centreX: 3, centreY: size - 4)

        let centres = QRSpec.alignmentCentres[version - 1]
        let last = centres.count - 1
        for (i, cy) in centres.enumerated() {
            for (j, cx) in centres.enumerated() {
                // Skip the three positions that coincide with finder patterns.
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(centreX: cx, centreY: cy)
            }
        }

        // Reserve the format areas now so data placement skips them; bits come per mask.
        drawFormat(bits: 0)
        setFunction(x: 8, y: size - 8, dark: true)  // the dark module
        drawVersion()
    }

    /// A 7×7 finder pattern and its light separator, clipped at the symbol's edges.
    private mutating func drawFinder(centreX: Int, centreY: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let x = centreX + dx, y = centreY + dy
                guard x >= 0, x < size, y >= 0, y < size else { continue }
                let ring = max(abs(dx), abs(dy))  // 0 centre … 3 outer ring, 4 separator
                setFunction(x: x, y: y, dark: ring != 2 && ring != 4)
            }
        }
    }

    /// A 5×5 alignment pattern: dark ring, light ring, dark centre.
    private mutating func drawAlignment(centreX: Int, centreY: Int) {
        for dy in -2...2 {
            for dx in -2...2 {
                setFunction(x: centreX + dx, y: centreY + dy, dark: max(abs(dx), abs(dy)) != 1)
            }
        }
    }

    /// Writes the 15 format bits (bit 14 first in reading order) in both copies.
    mutating func drawFormat(bits: Int) {
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 != 0 }
        // Copy beside the top-left finder: down column 8, then left along row 8.
        for i in 0..<6 { setFunction(x: 8, y: i, dark: bit(i)) }
        setFunction(x: 8, y: 7, dark: bit(6))
        setFunction(x: 8, y: 8, dark: bit(7))
        setFunction(x: 7, y: 8, dark: bit(8))
        for i in 9..<15 { setFunction(x: 14 - i, y: 8, dark: bit(i)) }
        // Copy split between the top-right and bottom-left finders.
        for i in 0..<8 { setFunction(x: size - 1 - i, y: 8, dark: bit(i)) }
        for i in 8..<15 { setFunction(x: 8, y: size - 15 + i, dark: bit(i)) }
    }

    /// Writes the 18 version bits in the two 6×3 blocks (version 7 and up).
    private mutating func drawVersion() {
        guard version >= 7 else { return }
        let bits = QRFormat.versionBits(version: version)
        for i in 0..<18 {
            let isDark = (bits >> i) & 1 != 0
            let a = size - 11 + i % 3, b = i / 3
            setFunction(x: a, y: b, dark: isDark)  // left of the top-right finder
            setFunction(x: b, y: a, dark: isDark)  // above the bottom-left finder
        }
    }

    /// Places `codewords` (most significant bit first) in the non-function modules, in
    /// two-module-wide columns from the right, alternating upwards and downwards and
    /// skipping the vertical timing column. Modules left over stay light (remainder bits).
    mutating func placeCodewords(_ codewords: [UInt8]) {
        let totalBits = codewords.count * 8
        var bitIndex = 0
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = ((right + 1) & 2) == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] {
                    if bitIndex < totalBits {
                        let byte = codewords[bitIndex >> 3]
                        dark[y * size + x] = (byte >> UInt8(7 - (bitIndex & 7))) & 1 != 0
                    }
                    bitIndex += 1
                }
            }
            right -= 2
        }
    }
}
