package dev.sextant.serviceconfig;

import dev.sextant.serviceconfig.JoinServiceConfig.Atls;
import dev.sextant.serviceconfig.JoinServiceConfig.Ca;
import dev.sextant.serviceconfig.JoinServiceConfig.Etcd;
import dev.sextant.serviceconfig.JoinServiceConfig.InitNode;
import dev.sextant.serviceconfig.JoinServiceConfig.Kms;
import dev.sextant.serviceconfig.JoinServiceConfig.Kubernetes;
import dev.sextant.serviceconfig.JoinServiceConfig.Measurements;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Changes settings of a {@link JoinServiceConfig} by name ({@code config.toBuilder().kms(...).build()}):
 * the record's seventeen components are too many to pass in order. {@link #build} checks the result as
 * the record's constructor does.
 */
public final class JoinServiceConfigBuilder {
    private ServerPorts ports;
    private Etcd etcd;
    private Kms kms;
    private Atls atls;
    private Kubernetes kubernetes;
    private String apiServerEndpoint;
    private String kubernetesVersion;
    private Path measurementSaltFile;
    private Duration tokenTtl;
    private Duration memberCertificateValidity;
    private Ca ca;
    private Path controlPlaneDir;
    private Measurements measurements;
    private Optional<Path> ekCaFile;
    private boolean insecureTrustAnyAk;
    private Optional<InitNode> initNode;
    private Optional<JoinServiceConfig.MasterSecret> masterSecret;
    private int controlPlanes;

    JoinServiceConfigBuilder(JoinServiceConfig from) {
        ports = from.ports();
        etcd = from.etcd();
        kms = from.kms();
        atls = from.atls();
        kubernetes = from.kubernetes();
        apiServerEndpoint = from.apiServerEndpoint();
        kubernetesVersion = from.kubernetesVersion();
        measurementSaltFile = from.measurementSaltFile();
        tokenTtl = from.tokenTtl();
        memberCertificateValidity = from.memberCertificateValidity();
        ca = from.ca();
        controlPlaneDir = from.controlPlaneDir();
        measurements = from.measurements();
        ekCaFile = from.ekCaFile();
        insecureTrustAnyAk = from.insecureTrustAnyAk();
        initNode = from.initNode();
        masterSecret = from.masterSecret();
        controlPlanes = from.controlPlanes();
    }

    public JoinServiceConfigBuilder ports(ServerPorts value) {
        ports = value;
        return this;
    }

    public JoinServiceConfigBuilder etcd(Etcd value) {
        etcd = value;
        return this;
    }

    public JoinServiceConfigBuilder kms(Kms value) {
        kms = value;
        return this;
    }

    public JoinServiceConfigBuilder atls(Atls value) {
        atls = value;
        return this;
    }

    public JoinServiceConfigBuilder kubernetes(Kubernetes value) {
        kubernetes = value;
        return this;
    }

    public JoinServiceConfigBuilder apiServerEndpoint(String value) {
        apiServerEndpoint = value;
        return this;
    }

    public JoinServiceConfigBuilder kubernetesVersion(String value) {
        kubernetesVersion = value;
        return this;
    }

    public JoinServiceConfigBuilder measurementSaltFile(Path value) {
        measurementSaltFile = value;
        return this;
    }

    public JoinServiceConfigBuilder tokenTtl(Duration value) {
        tokenTtl = value;
        return this;
    }

    public JoinServiceConfigBuilder memberCertificateValidity(Duration value) {
        memberCertificateValidity = value;
        return this;
    }

    public JoinServiceConfigBuilder ca(Ca value) {
        ca = value;
        return this;
    }

    public JoinServiceConfigBuilder controlPlaneDir(Path value) {
        controlPlaneDir = value;
        return this;
    }

    public JoinServiceConfigBuilder measurements(Measurements value) {
        measurements = value;
        return this;
    }

    /** The EK CA bundle a joining node's AK must chain to. */
    public JoinServiceConfigBuilder ekCaFile(Path value) {
        ekCaFile = Optional.of(value);
        return this;
    }

    /** Development only: accept any AK (the verifier warns on every use). */
    public JoinServiceConfigBuilder insecureTrustAnyAk(boolean value) {
        insecureTrustAnyAk = value;
        return this;
    }

    public JoinServiceConfigBuilder masterSecret(Optional<JoinServiceConfig.MasterSecret> value) {
        masterSecret = value;
        return this;
    }

    public JoinServiceConfigBuilder initNode(Optional<InitNode> value) {
        initNode = value;
        return this;
    }

    public JoinServiceConfigBuilder controlPlanes(int value) {
        controlPlanes = value;
        return this;
    }

    public JoinServiceConfig build() {
        return new JoinServiceConfig(ports, etcd, kms, atls, kubernetes, apiServerEndpoint, kubernetesVersion,
                measurementSaltFile, tokenTtl, memberCertificateValidity, ca, controlPlaneDir, measurements, ekCaFile,
                insecureTrustAnyAk, initNode, controlPlanes, masterSecret);
    }
}
