package dev.sextant.measuredboot.testing;

import dev.sextant.attestation.Variant;
import dev.sextant.attestation.policy.ExpectedValue;
import dev.sextant.attestation.policy.Measurements;
import dev.sextant.attestation.policy.MeasurementSet;
import dev.sextant.measuredboot.io.ArraySource;
import dev.sextant.measuredboot.predict.PcrPredictor;
import dev.sextant.measuredboot.predict.Prediction;
import dev.sextant.measuredboot.testing.TestPe.Sec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes the measured-boot fuzz seed corpora (scripts/fuzz.sh --seeds); the outputs are committed.
 * Every seed comes from the tools that make the node image, run on the host: ukify with Debian's
 * systemd-stub 252 (what the image ships) and 254, Debian's EFI binaries as they are,
 * osslsigncode for an Authenticode-signed copy, mkfs.vfat and mtools for the ESP's FAT,
 * sgdisk and systemd-repart (with the ESP of mkosi/mkosi.repart) for the GPT. The kernel inside
 * the UKIs is a small PE ({@link TestPe}) standing in for the 8 MB Debian kernel. A few seeds are
 * built by {@link TestPe} alone: small PEs for the predictor's refusals. Disks and volumes are
 * written as {@link SparseImage}s. The measurements JSON predicted for the UKIs, and the real
 * boot's PCR values (src/test/resources/boot), go to the attestation module's corpus.
 * Arguments: measured-boot's src/test/resources, attestation's src/test/resources, an empty scratch
 * directory (its disks are large, if sparse: the caller deletes it).
 */
public final class FuzzSeeds {
    private static final String PE = "dev/sextant/measuredboot/pe/PeFuzzTestInputs/authenticode";
    private static final String UKI = "dev/sextant/measuredboot/predict/UkiFuzzTestInputs/predict";
    private static final String FAT = "dev/sextant/measuredboot/fat/FatFuzzTestInputs/read";
    private static final String GPT = "dev/sextant/measuredboot/gpt/GptFuzzTestInputs/read";
    private static final String ESP = "dev/sextant/measuredboot/predict/EspFuzzTestInputs/bootLoader";
    private static final String MEASUREMENTS = "dev/sextant/attestation/policy/MeasurementsJsonFuzzTestInputs/parse";
    private static final String OSREL = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\nVERSION_ID=\"12\"\n";
    private static final String CMDLINE = "console=ttyS0 roothash=0b3c6a1ee5cdb1b1cb0a7a2c55e5b3b1c7e6b1c1f2e3d4c5b6a7980112233445 ro";

    private final Path res;
    private final Path work;

    private FuzzSeeds(Path res, Path work) {
        this.res = res;
        this.work = work;
    }

    public static void main(String[] args) throws Exception {
        FuzzSeeds seeds = new FuzzSeeds(Path.of(args[0]), Path.of(args[2]));
        Map<String, byte[]> ukis = seeds.ukis();
        seeds.peFiles(ukis);
        seeds.measurements(ukis, Path.of(args[1]).resolve(MEASUREMENTS));
        seeds.fatVolumes(ukis.get("uki-stub252"));
        seeds.disks(ukis.get("uki-stub252"));
    }

    /** UKIs as ukify builds them, each also a seed of the PE target. */
    private Map<String, byte[]> ukis() throws Exception {
        Path stub252 = Fixtures.stub252();
        Path stub254 = Path.of(Tools.STUB_DIR, "linuxx64.efi.stub");
        Path kernel = Files.write(work.resolve("vmlinuz.efi"), TestPe.build(List.of(Sec.of(".text", "kernel"))));
        Path initrd = Files.write(work.resolve("initrd.cpio"), "070701 initrd stand-in".getBytes(StandardCharsets.US_ASCII));
        Path splash = Files.write(work.resolve("splash.bmp"), bmp());
        Path pcrpkey = work.resolve("pcrpkey.pem");
        Tools.run(work, "openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out",
                work.resolve("pcr.key").toString()).ok();
        Tools.run(work, "openssl", "pkey", "-in", work.resolve("pcr.key").toString(), "-pubout", "-out", pcrpkey.toString()).ok();
        Map<String, byte[]> ukis = new LinkedHashMap<>();
        ukis.put("uki-stub252", read(Fixtures.ukify(work, kernel, initrd, CMDLINE, OSREL, "--stub=" + stub252)));
        ukis.put("uki-stub252-cmdline-only", read(Fixtures.ukify(work, kernel, null, CMDLINE, null, "--stub=" + stub252)));
        ukis.put("uki-stub252-cmdline-whitespace", read(Fixtures.ukify(work, kernel, initrd,
                "\t console=ttyS0\u0001quiet \n", OSREL, "--stub=" + stub252)));
        ukis.put("uki-stub254", read(Fixtures.ukify(work, kernel, initrd, CMDLINE, OSREL, "--stub=" + stub254)));
        ukis.put("uki-stub254-splash-uname", read(Fixtures.ukify(work, kernel, initrd, CMDLINE, OSREL, "--stub=" + stub254,
                "--splash=" + splash, "--uname=6.1.0-56-cloud-amd64")));
        ukis.put("uki-stub254-pcrpkey", read(Fixtures.ukify(work, kernel, initrd, CMDLINE, OSREL, "--stub=" + stub254,
                "--pcrpkey=" + pcrpkey)));
        ukis.put("uki-stub252-signed", signed(ukis.get("uki-stub252")));
        ukis.put("testpe-stub252-padded-sections", TestPe.build(List.of(new Sec(".linux", read(kernel), 0x2000),
                Sec.of(".osrel", OSREL), Sec.of(".cmdline", CMDLINE), new Sec(".initrd", new byte[] {7}, 0x1000),
                Sec.of(".sdmagic", TestPe.sdmagic(252)))));
        ukis.put("testpe-stub251", TestPe.build(List.of(Sec.of(".linux", "kernel"), Sec.of(".sdmagic", TestPe.sdmagic(251)))));
        ukis.put("testpe-no-sdmagic", TestPe.build(List.of(Sec.of(".linux", "kernel"), Sec.of(".cmdline", CMDLINE))));
        for (Map.Entry<String, byte[]> u : ukis.entrySet()) {
            write(res.resolve(UKI).resolve(u.getKey() + ".efi"), u.getValue());
        }
        write(res.resolve(UKI).resolve("vmlinuz-stand-in.efi"), read(kernel));
        return ukis;
    }

    /** Debian's EFI binaries (stub, boot manager, addon stub) of both releases, and the UKIs. */
    private void peFiles(Map<String, byte[]> ukis) throws Exception {
        Path stub252Dir = Fixtures.stub252().getParent();
        Map<String, Path> binaries = new LinkedHashMap<>();
        binaries.put("linuxx64-stub252.efi.stub", stub252Dir.resolve("linuxx64.efi.stub"));
        binaries.put("systemd-bootx64-252.efi", stub252Dir.resolve("systemd-bootx64.efi"));
        binaries.put("linuxx64-stub254.efi.stub", Path.of(Tools.STUB_DIR, "linuxx64.efi.stub"));
        binaries.put("systemd-bootx64-254.efi", Path.of(Tools.STUB_DIR, "systemd-bootx64.efi"));
        binaries.put("addonx64-254.efi.stub", Path.of(Tools.STUB_DIR, "addonx64.efi.stub"));
        for (Map.Entry<String, Path> b : binaries.entrySet()) {
            write(res.resolve(PE).resolve(b.getKey()), read(b.getValue()));
        }
        write(res.resolve(PE).resolve("addonx64-254-signed.efi"), signed(read(binaries.get("addonx64-254.efi.stub"))));
        write(res.resolve(PE).resolve("vmlinuz-stand-in.efi"), TestPe.build(List.of(Sec.of(".text", "kernel"))));
        // The UKI target has them all; here one of each stub and the signed one, for the PE parser.
        for (String name : List.of("uki-stub252", "uki-stub254", "uki-stub252-signed", "testpe-stub252-padded-sections")) {
            write(res.resolve(PE).resolve(name + ".efi"), ukis.get(name));
        }
    }

    /**
     * The sets {@code sextant measure image} prints and {@code sextant image build} writes (format 2, a
     * set of one versioned image) for each UKI it predicts, and the PCRs the guest read in the captured real boot.
     */
    private void measurements(Map<String, byte[]> ukis, Path dir) throws Exception {
        for (String name : List.of("uki-stub252", "uki-stub254", "uki-stub254-splash-uname")) {
            Prediction p = new PcrPredictor().predict(new ArraySource(ukis.get(name)));
            write(dir.resolve("predicted-" + name + ".json"), p.measurements().toJson());
        }
        Prediction built = new PcrPredictor().predict(new ArraySource(ukis.get("uki-stub252")));
        write(dir.resolve("image-build-uki-stub252.json"), MeasurementSet.of(1_700_000_000L, built.measurements(), "20231114.221320").toJson());
        SortedMap<Integer, ExpectedValue> real = new TreeMap<>();
        Files.readAllLines(res.resolve("boot/mkosi-stub252-pcrs.txt")).stream().map(l -> l.split(" "))
                .forEach(f -> real.put(Integer.parseInt(f[1]), new ExpectedValue(HexFormat.of().parseHex(f[2]), false)));
        write(dir.resolve("real-boot-mkosi-stub252.json"), MeasurementSet.of(3, new Measurements(Variant.QEMU_VTPM, real), "1").toJson());
    }

    /** ESP volumes as mkfs.vfat and mtools make them, written sparse. */
    private void fatVolumes(byte[] uki) throws Exception {
        byte[] addon = read(Path.of(Tools.STUB_DIR, "addonx64.efi.stub"));
        Map<String, byte[]> loader = Map.of("EFI/BOOT/BOOTX64.EFI", addon);
        fat("fat12-esp", 1024, List.of("-F", "12"), loader);
        fat("fat16-esp", 16 * 1024, List.of("-F", "16"), loader);
        fat("fat32-esp", 69632, List.of("-F", "32"), loader);
        fat("fat32-esp-uki-stub252", 69632, List.of("-F", "32"), Map.of("EFI/BOOT/BOOTX64.EFI", uki));
        fat("fat12-empty", 512, List.of("-F", "12"), Map.of());
        fat("fat12-one-fat-8-sector-clusters", 2048, List.of("-F", "12", "-f", "1", "-s", "8"), loader);
        fat("fat16-4096-byte-sectors", 32 * 1024, List.of("-F", "16", "-S", "4096", "-s", "1"), loader);
        Map<String, byte[]> longNames = new LinkedHashMap<>(loader);
        longNames.put("EFI/Linux/debian-6.1.0-56-cloud-amd64.efi", addon);
        longNames.put("loader/entries/Sextant node image with a long name.conf",
                "title Sextant\nefi /EFI/Linux/debian-6.1.0-56-cloud-amd64.efi\n".getBytes(StandardCharsets.US_ASCII));
        longNames.put("loader/loader.conf", "timeout 0\n".getBytes(StandardCharsets.US_ASCII));
        longNames.put("empty", new byte[0]);
        fat("fat12-long-names", 1024, List.of("-F", "12"), longNames);
        fat("fat32-long-names", 69632, List.of("-F", "32"), longNames);
        Map<String, byte[]> nested = new LinkedHashMap<>(loader);
        nested.put("a/b/c/d/e/f/deep.txt", "deep".getBytes(StandardCharsets.US_ASCII));
        fat("fat16-nested", 16 * 1024, List.of("-F", "16"), nested);
        Map<String, byte[]> manyFiles = new LinkedHashMap<>(loader);
        for (int i = 0; i < 40; i++) {
            manyFiles.put("FILE" + i + ".TXT", ("file " + i).getBytes(StandardCharsets.US_ASCII));
        }
        fat("fat16-many-root-files", 16 * 1024, List.of("-F", "16"), manyFiles);
        // Deleted entries (0xE5) and a file whose clusters are not contiguous: copy A and B, delete
        // A, then copy a file larger than A, which fills A's clusters and continues after B.
        Path img = mkfs("fat12-fragmented", 1024, List.of("-F", "12", "-s", "1"));
        copy(img, "A.BIN", new byte[3000]);
        copy(img, "B.BIN", "between".getBytes(StandardCharsets.US_ASCII));
        Tools.run(work, "mdel", "-i", img.toString(), "::/A.BIN").ok();
        byte[] fragmented = new byte[9000];
        new java.util.Random(9000).nextBytes(fragmented);
        copy(img, "EFI/BOOT/BOOTX64.EFI", fragmented);
        copy(img, "DELETED.TXT", "gone".getBytes(StandardCharsets.US_ASCII));
        Tools.run(work, "mdel", "-i", img.toString(), "::/DELETED.TXT").ok();
        fatAndDisk("fat12-fragmented-and-deleted", img);
    }

    /** A FAT seed, and the same volume as the ESP of a GPT disk for the ESP target. */
    private void fat(String name, int kib, List<String> options, Map<String, byte[]> files) throws Exception {
        Path img = mkfs(name, kib, options);
        for (Map.Entry<String, byte[]> f : files.entrySet()) {
            copy(img, f.getKey(), f.getValue());
        }
        fatAndDisk(name, img);
    }

    private void fatAndDisk(String name, Path img) throws Exception {
        write(res.resolve(FAT).resolve(name), SparseImage.encode(read(img)));
        write(res.resolve(ESP).resolve("sgdisk-" + name), SparseImage.encode(read(DiskImages.gptDisk(work, img))));
    }

    private Path mkfs(String name, int kib, List<String> options) throws Exception {
        Path img = work.resolve(name + ".img");
        List<String> cmd = new ArrayList<>(List.of("mkfs.vfat", "-C", "-n", "ESP"));
        cmd.addAll(options);
        cmd.addAll(List.of(img.toString(), Integer.toString(kib)));
        Tools.run(work, cmd.toArray(String[]::new)).ok();
        return img;
    }

    private void copy(Path img, String path, byte[] bytes) throws Exception {
        String[] parts = path.split("/");
        StringBuilder dir = new StringBuilder();
        for (int i = 0; i < parts.length - 1; i++) {
            dir.append('/').append(parts[i]);
            Tools.run(work, "mmd", "-D", "s", "-i", img.toString(), "::" + dir); // "-D s": skip if it exists
        }
        Path src = Files.write(work.resolve("payload"), bytes);
        Tools.run(work, "mcopy", "-i", img.toString(), src.toString(), "::/" + path).ok();
    }

    /** GPT disks (sgdisk, systemd-repart) for the GPT target; the node image's layout also for the ESP target. */
    private void disks(byte[] uki) throws Exception {
        byte[] addon = read(Path.of(Tools.STUB_DIR, "addonx64.efi.stub"));
        for (int bits : new int[] {12, 16, 32}) {
            int kib = bits == 12 ? 1024 : bits == 16 ? 16 * 1024 : 69632;
            Path esp = DiskImages.fat(work, bits, kib, Map.of("EFI/BOOT/BOOTX64.EFI", addon));
            write(res.resolve(GPT).resolve("sgdisk-esp-fat" + bits), SparseImage.encode(read(DiskImages.gptDisk(work, esp))));
        }
        Path lowerCase = DiskImages.fat(work, 12, 1024, Map.of("efi/boot/bootx64.efi", addon));
        write(res.resolve(ESP).resolve("sgdisk-esp-lower-case-path"), SparseImage.encode(read(DiskImages.gptDisk(work, lowerCase))));
        byte[] node = nodeImageLayout(uki);
        write(res.resolve(GPT).resolve("repart-node-image-layout"), node);
        write(res.resolve(ESP).resolve("repart-node-image-layout-uki-stub252"), node);
        // Partition tables sgdisk writes on an empty 8 MiB disk: many entries and types, names, none.
        write(res.resolve(GPT).resolve("sgdisk-16-partitions"), sgdisk(16, manyPartitions()));
        write(res.resolve(GPT).resolve("sgdisk-unicode-names"), sgdisk(8, List.of("-n", "1:2048:+1M", "-t", "1:EF00",
                "-c", "1:Système EFI ☃", "-n", "2:0:+1M", "-t", "2:8304", "-c", "2:racine")));
        write(res.resolve(GPT).resolve("sgdisk-two-esps"), sgdisk(8, List.of("-n", "1:2048:+1M", "-t", "1:EF00",
                "-n", "2:0:+1M", "-t", "2:EF00")));
        write(res.resolve(GPT).resolve("sgdisk-no-partitions"), sgdisk(8, List.of("-o")));
        write(res.resolve(GPT).resolve("sgdisk-hybrid-mbr"), sgdisk(8, List.of("-n", "1:2048:+1M", "-t", "1:EF00",
                "-n", "2:0:+1M", "-t", "2:8300", "-h", "1:EE")));
        write(res.resolve(GPT).resolve("sgdisk-32-entry-table"), sgdisk(8, List.of("-S", "32", "-n", "1:0:+1M", "-t", "1:EF00")));
    }

    private static List<String> manyPartitions() {
        List<String> args = new ArrayList<>();
        String[] types = {"EF00", "8304", "8319", "8300", "8200", "0700", "8E00", "FD00"};
        for (int i = 1; i <= 16; i++) {
            args.addAll(List.of("-n", i + ":0:+256K", "-t", i + ":" + types[i % types.length], "-c", i + ":part" + i));
        }
        return args;
    }

    private byte[] sgdisk(int mib, List<String> args) throws Exception {
        Path disk = work.resolve("sgdisk-" + System.nanoTime() + ".raw");
        try (var f = new java.io.RandomAccessFile(disk.toFile(), "rw")) {
            f.setLength(mib << 20);
        }
        List<String> cmd = new ArrayList<>(List.of("sgdisk"));
        cmd.addAll(args);
        cmd.add(disk.toString());
        Tools.run(work, cmd.toArray(String[]::new)).ok();
        return SparseImage.encode(read(disk));
    }

    /**
     * The node image's partition table as mkosi has systemd-repart make it (mkosi/mkosi.repart: a
     * 128 MiB vfat ESP, root, root-verity), with the root partitions left empty; the UKI goes into the
     * ESP with mtools, as the host kernel cannot mount vfat for repart's CopyFiles.
     */
    private byte[] nodeImageLayout(byte[] uki) throws Exception {
        Tools.require("systemd-repart");
        Path defs = Files.createDirectories(work.resolve("repart.d"));
        Files.writeString(defs.resolve("00-esp.conf"), "[Partition]\nType=esp\nFormat=vfat\nSizeMinBytes=128M\nSizeMaxBytes=128M\n");
        Files.writeString(defs.resolve("10-root.conf"), "[Partition]\nType=root\nSizeMinBytes=64K\nSizeMaxBytes=64K\n");
        Files.writeString(defs.resolve("20-root-verity.conf"), "[Partition]\nType=root-verity\nSizeMinBytes=16K\nSizeMaxBytes=16K\n");
        Path disk = work.resolve("node.raw");
        Tools.run(work, "systemd-repart", "--empty=create", "--size=auto", "--dry-run=no", "--definitions=" + defs,
                "--seed=random", disk.toString()).ok();
        String esp = disk + "@@" + DiskImages.ESP_OFFSET;
        Tools.run(work, "mmd", "-i", esp, "::/EFI", "::/EFI/BOOT").ok();
        Tools.run(work, "mcopy", "-i", esp, Files.write(work.resolve("uki.efi"), uki).toString(), "::/EFI/BOOT/BOOTX64.EFI").ok();
        return SparseImage.encode(read(disk));
    }

    /** A copy signed by osslsigncode with a throwaway key: an attribute certificate table at the end. */
    private byte[] signed(byte[] pe) throws Exception {
        Path key = work.resolve("sign.key");
        Path cert = work.resolve("sign.pem");
        if (!Files.exists(cert)) {
            Tools.run(work, "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(),
                    "-out", cert.toString(), "-days", "1", "-subj", "/CN=sextant fuzz seed").ok();
        }
        Path in = Files.write(work.resolve("unsigned.efi"), pe);
        Path out = work.resolve("signed-" + System.nanoTime() + ".efi");
        Tools.run(work, "osslsigncode", "sign", "-certs", cert.toString(), "-key", key.toString(), "-h", "sha256",
                "-in", in.toString(), "-out", out.toString()).ok();
        return read(out);
    }

    /** A 2x2 24-bit BMP: ukify checks the splash's header. */
    private static byte[] bmp() {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(54 + 16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 'B').put((byte) 'M').putInt(70).putInt(0).putInt(54);
        b.putInt(40).putInt(2).putInt(2).putShort((short) 1).putShort((short) 24).putInt(0).putInt(16)
                .putInt(2835).putInt(2835).putInt(0).putInt(0);
        return b.array();
    }

    private static byte[] read(Path p) throws IOException {
        return Files.readAllBytes(p);
    }

    private static void write(Path file, byte[] bytes) throws IOException {
        Files.createDirectories(file.getParent());
        Files.write(file, bytes);
    }
}
