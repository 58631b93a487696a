"""A Debian 12 root with nvmond's .deb installed: the machinery the package
tests (tests/package/) and the OCI image (packaging/oci/build-image) share.

debootstrap makes a bookworm root once (minbase plus systemd, so the package
tests can boot it under systemd-nspawn) and keeps it as a tarball in
$NVMOND_CHROOT_CACHE (default /var/cache/nvmond-tests/bookworm.tar), with the
packages apt downloads kept beside it: later roots are unpacked from the
tarball and need the network only when the package's dependencies changed.
Everything here needs root (chroot, mounts).
"""
import glob
import os
import re
import shutil
import subprocess
import tempfile

CACHE = os.environ.get("NVMOND_CHROOT_CACHE", "/var/cache/nvmond-tests/bookworm.tar")
MIRROR = os.environ.get("NVMOND_DEBIAN_MIRROR", "http://deb.debian.org/debian")
ARCHIVES = os.path.join(os.path.dirname(CACHE), "apt-archives")


class MirrorUnreachable(Exception):
    """The Debian mirror cannot be reached and nothing cached stands in."""


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def make_chroot_tarball():
    """debootstrap bookworm into a temp dir and tar it into CACHE."""
    os.makedirs(os.path.dirname(CACHE), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="nvmond-debootstrap-", dir=os.path.dirname(CACHE))
    try:
        r = run(["debootstrap", "--variant=minbase", "--include=systemd", "bookworm", tmp, MIRROR], timeout=1800)
        if r.returncode != 0:
            tail = "\n".join(r.stdout.splitlines()[-5:])
            if re.search(r"Failed getting release file|Couldn't download|Temporary failure|Could not resolve|"
                         r"unable to fetch|Connection refused|Network is unreachable", r.stdout, re.I):
                raise MirrorUnreachable(f"debootstrap cannot reach {MIRROR} and there is no cached root at "
                                        f"{CACHE}:\n{tail}")
            raise AssertionError(f"debootstrap failed:\n{r.stdout[-3000:]}")
        # apt inside needs its package lists: fetched once, kept in the tarball.
        r = chroot_run(tmp, "apt-get update -qq")
        if r.returncode != 0:
            raise MirrorUnreachable(f"apt-get update in the root cannot reach the mirror:\n{r.stdout[-1000:]}")
        # debootstrap's own downloads: not needed in every copy of the root.
        for f in glob.glob(os.path.join(tmp, "var/cache/apt/archives/*.deb")):
            os.remove(f)
        os.chmod(tmp, 0o755)
        part = CACHE + ".part"
        run(["tar", "-C", tmp, "-cf", part, "."], check=True)
        os.replace(part, CACHE)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def unready(tools):
    """Why a root cannot be made here (not root, one of `tools` missing, no
    mirror and nothing cached), or None. Debootstraps the cache when there
    is none."""
    if os.geteuid() != 0:
        return "needs root (chroot, mounts)"
    for tool in tools:
        if not shutil.which(tool):
            return f"{tool} is not installed (scripts/setup installs it)"
    if not os.path.exists(CACHE):
        try:
            make_chroot_tarball()
        except MirrorUnreachable as e:
            return str(e)
    return None


def unpack_root(root):
    """A fresh bookworm root in the empty directory `root` (debootstrapped
    first if nothing is cached)."""
    if not os.path.exists(CACHE):
        make_chroot_tarball()
    os.makedirs(root, exist_ok=True)
    run(["tar", "-C", root, "--numeric-owner", "-xf", CACHE], check=True)
    # A root's / is 0755: the tarball's "." may carry the 0700 of the
    # temporary directory debootstrap ran in, which locks out every user but
    # root (the image's user among them).
    os.chmod(root, 0o755)


def chroot_run(root, script, env=None, timeout=600):
    """`sh -c script` in the chroot, in a private mount namespace with /proc
    and the apt archive cache mounted (gone when it exits)."""
    os.makedirs(ARCHIVES, exist_ok=True)
    inner = ("set -e; mount -t proc proc \"$1/proc\"; "
             "mount --bind \"$2\" \"$1/var/cache/apt/archives\"; "
             "shift 2; exec chroot \"$0\" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "
             "DEBIAN_FRONTEND=noninteractive " + " ".join(f"{k}={v}" for k, v in (env or {}).items()) +
             " sh -c \"$1\"")
    return run(["unshare", "--mount", "--propagation", "private", "sh", "-c", inner, root, root, ARCHIVES,
                script], timeout=timeout)


def build_deb(build_dir, out):
    """The .deb CPack makes from `build_dir` (nvmond and nvmonctl built), in `out`."""
    cfg = os.path.join(build_dir, "CPackConfig.cmake")
    r = run(["cpack", "--config", cfg, "-G", "DEB", "-B", out], timeout=600)
    if r.returncode != 0:
        raise AssertionError(f"cpack failed:\n{r.stdout}")
    (deb,) = [os.path.join(out, f) for f in os.listdir(out) if f.endswith(".deb")]
    return deb


def deb_field(deb, field):
    return run(["dpkg-deb", "-f", deb, field], check=True).stdout.strip()


def depends(deb):
    """Package names in the .deb's Depends (first of each alternative)."""
    field = deb_field(deb, "Depends")
    return [re.split(r"[\s(]", alt.split("|")[0].strip())[0] for alt in field.split(",") if alt.strip()]


def install_depends(root, deb):
    """The .deb's Depends from the Debian mirror into `root`. The cached
    package lists may be older than the mirror (a point release moved a
    version): refresh them and retry once."""
    deps = depends(deb)
    install = "apt-get install -y -qq --no-install-recommends " + " ".join(deps)
    r = chroot_run(root, f"{install} || (apt-get update -qq && {install})")
    if r.returncode != 0:
        raise AssertionError(f"installing the package's Depends ({deps}) from Debian failed:\n{r.stdout[-3000:]}")
