// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterstatus.h"

#include "prometheustext.h"

#include <QJsonArray>

namespace Broker::Rest::ClusterStatus {

namespace {

QByteArray nodeLabels(const StoreNodeStatus &node)
{
    return "node=\"" + promLabel(node.address) + "\",role=\"" + (node.primary ? "primary" : "replica") + '"';
}

} // namespace

QJsonObject toJson(const StoreStatus &store)
{
    QJsonArray nodes;
    for (const StoreNodeStatus &node : store.nodes) {
        QJsonObject one;
        one.insert(QStringLiteral("address"), node.address);
        one.insert(QStringLiteral("role"), node.primary ? QStringLiteral("primary") : QStringLiteral("replica"));
        if (!node.health.isEmpty())
            one.insert(QStringLiteral("health"), node.health);
        one.insert(QStringLiteral("slots"), node.slotCount);
        if (node.primary) {
            QJsonObject pool;
            pool.insert(QStringLiteral("ready"), node.connectionsReady);
            pool.insert(QStringLiteral("size"), node.connections);
            one.insert(QStringLiteral("pool"), pool);
        }
        QJsonObject redirects;
        redirects.insert(QStringLiteral("moved"), node.movedRedirects);
        redirects.insert(QStringLiteral("ask"), node.askRedirects);
        one.insert(QStringLiteral("redirects"), redirects);
        nodes.append(one);
    }
    QJsonObject cluster;
    cluster.insert(QStringLiteral("all_slots_served"), store.allSlotsServed);
    cluster.insert(QStringLiteral("nodes"), nodes);
    return cluster;
}

QJsonObject wakeupsJson(const StoreStatus &store)
{
    QJsonObject wakeups;
    wakeups.insert(QStringLiteral("subscribed"), !store.wakeupNode.isEmpty());
    if (!store.wakeupNode.isEmpty())
        wakeups.insert(QStringLiteral("node"), store.wakeupNode);
    else if (!store.wakeupError.isEmpty())
        wakeups.insert(QStringLiteral("last_error"), store.wakeupError);
    wakeups.insert(QStringLiteral("received"), store.wakeupsReceived);
    return wakeups;
}

void appendMetrics(QByteArray &out, const StoreStatus &store)
{
    appendSingle(out, "brokerdesk_storage_wakeup_subscribed", "gauge",
                 "1 while subscribed to other brokers' wake-ups (long polls answered within a round trip).",
                 store.wakeupNode.isEmpty() ? 0 : 1);
    appendSingle(out, "brokerdesk_storage_wakeups_received_total", "counter",
                 "Wake-ups heard from brokers sharing the backend (this broker's own included).", store.wakeupsReceived);
    if (!store.cluster)
        return;
    appendSingle(out, "brokerdesk_storage_cluster_slots_served", "gauge",
                 "1 while every slot has a primary this broker reaches.", store.allSlotsServed ? 1 : 0);
    appendFamilyHead(out, "brokerdesk_storage_cluster_node_connections_ready", "gauge",
                     "Connections to a cluster primary that are up.");
    for (const StoreNodeStatus &node : store.nodes) {
        if (node.primary)
            out += "brokerdesk_storage_cluster_node_connections_ready{" + nodeLabels(node) + "} "
                + QByteArray::number(node.connectionsReady) + '\n';
    }
    appendFamilyHead(out, "brokerdesk_storage_cluster_node_connections", "gauge",
                     "Connections this broker keeps to a cluster primary.");
    for (const StoreNodeStatus &node : store.nodes) {
        if (node.primary)
            out += "brokerdesk_storage_cluster_node_connections{" + nodeLabels(node) + "} "
                + QByteArray::number(node.connections) + '\n';
    }
    appendFamilyHead(out, "brokerdesk_storage_cluster_node_slots", "gauge", "Slots a cluster node serves as primary.");
    for (const StoreNodeStatus &node : store.nodes)
        out += "brokerdesk_storage_cluster_node_slots{" + nodeLabels(node) + "} " + QByteArray::number(node.slotCount) + '\n';
    appendFamilyHead(out, "brokerdesk_storage_cluster_redirects_total", "counter",
                     "Replies of a cluster node that sent a command elsewhere (MOVED: the slot moved; ASK: it is moving).");
    for (const StoreNodeStatus &node : store.nodes) {
        out += "brokerdesk_storage_cluster_redirects_total{" + nodeLabels(node) + ",kind=\"moved\"} "
            + QByteArray::number(node.movedRedirects) + '\n';
        out += "brokerdesk_storage_cluster_redirects_total{" + nodeLabels(node) + ",kind=\"ask\"} "
            + QByteArray::number(node.askRedirects) + '\n';
    }
}

} // namespace Broker::Rest::ClusterStatus
