package dev.sextant.cli.input;

import picocli.CommandLine;

import java.util.HexFormat;

/**
 * A hex option value. A wrapper rather than byte[], which picocli would read as a multi-value
 * option; a bad value becomes a usage error that names the option.
 */
public record Hex(byte[] bytes) {
    public static final Hex EMPTY = new Hex(new byte[0]);

    public Hex {
        bytes = bytes.clone();
    }

    @Override
    public byte[] bytes() { return bytes.clone(); }

    public static final class Converter implements CommandLine.ITypeConverter<Hex> {
        @Override
        public Hex convert(String value) {
            try {
                return new Hex(HexFormat.of().parseHex(value.strip()));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not hex (an even number of digits 0-9 a-f, e.g. 00112233)");
            }
        }
    }
}
