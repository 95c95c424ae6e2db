"""demo_nodes_cpp talker and listener, each on an RMW of your choice.

    ros2 launch launch/talker_listener.launch.py talker_rmw:=rmw_hdds listener_rmw:=rmw_cyclonedds_cpp

Both nodes run loopback-only (ROS_LOCALHOST_ONLY=1) unless localhost_only:=0.
"""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description():
    args = [
        DeclareLaunchArgument('talker_rmw', default_value='rmw_hdds'),
        DeclareLaunchArgument('listener_rmw', default_value='rmw_hdds'),
        DeclareLaunchArgument('localhost_only', default_value='1'),
    ]

    def node(executable, rmw):
        return Node(
            package='demo_nodes_cpp',
            executable=executable,
            output='screen',
            additional_env={
                'RMW_IMPLEMENTATION': LaunchConfiguration(rmw),
                'ROS_LOCALHOST_ONLY': LaunchConfiguration('localhost_only'),
            },
        )

    return LaunchDescription(args + [node('talker', 'talker_rmw'), node('listener', 'listener_rmw')])
