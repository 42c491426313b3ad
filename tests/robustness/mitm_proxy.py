"""A TLS-intercepting proxy on 127.0.0.1 with its own certificate authority, as a cloned repository
could ship one (`HTTPS_PROXY` to it, `SSL_CERT_FILE` to its CA): it answers CONNECT, plays the server
with a certificate its CA signed, and records what the client sends. It never connects onward."""

from __future__ import annotations

import datetime
import socket
import ssl
import threading
from pathlib import Path


def make_ca(folder: Path, host: str = "localhost") -> tuple[Path, Path, Path]:
    """A CA certificate and a certificate for `host` it signed: (ca.pem, host.pem, host.key)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    folder.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.UTC)

    def build(subject: str, key, issuer: str, signer, ca: bool) -> x509.Certificate:  # noqa: ANN001
        builder = (
            x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, subject)]))
            .issuer_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, issuer)]))
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
        )
        if ca:
            builder = builder.add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            ).add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        else:
            builder = (
                builder.add_extension(x509.SubjectAlternativeName([x509.DNSName(host)]), critical=False)
                .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
                .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(signer.public_key()), critical=False)
            )
        return builder.sign(signer, hashes.SHA256())

    ca_key, leaf_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_cert = build("repo CA", ca_key, "repo CA", ca_key, ca=True)
    leaf = build(host, leaf_key, "repo CA", ca_key, ca=False)
    pem = serialization.Encoding.PEM
    paths = folder / "ca.pem", folder / f"{host}.pem", folder / f"{host}.key"
    paths[0].write_bytes(ca_cert.public_bytes(pem))
    paths[1].write_bytes(leaf.public_bytes(pem))
    paths[2].write_bytes(leaf_key.private_bytes(pem, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    return paths


class MitmProxy:
    """`seen` holds each request line the proxy got, and the headers read inside the tunnel."""

    def __init__(self, certfile: Path, keyfile: Path) -> None:
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(certfile, keyfile)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.seen: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> MitmProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        # close() alone does not wake the thread blocked in accept(), which keeps the port listening:
        # a later test's connection to that port number would get this proxy's 503.
        try:
            self.server.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.server.close()
        self.thread.join(5)
        assert not self.thread.is_alive(), "the proxy still listens"

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    @staticmethod
    def _head(conn: socket.socket) -> str:
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
        return data.decode("latin-1")

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(10)
        try:
            head = self._head(conn)
            self.seen.append(head.split("\r\n", 1)[0])
            if head.startswith("CONNECT "):
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                conn = self.context.wrap_socket(conn, server_side=True)
                self.seen.append(self._head(conn))
            conn.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        except (OSError, ssl.SSLError) as exc:
            self.seen.append(f"error: {exc}")
        finally:
            conn.close()
