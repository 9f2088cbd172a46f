# chart-text.svg and chart-text.png, written by attnzoo; rerun with `gnuplot chart-text.gp` in this folder.
$f0 << EOD
"full" 0.4192 89.7785 7 0
EOD

set terminal svg size 1100,650 dynamic noenhanced font 'Helvetica,13' background rgb 'white'
set output 'chart-text.svg'
set title "Text on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:0.75456]
set yrange [67.017:92.7785]
set xtics ("0.5" 0.5)
set label 1 "full" at 0.4192,89.7785 center offset char 0,2.31429 front
set arrow from graph 0, first 70.017 to graph 1, first 70.017 nohead dt 2 lc rgb '#888888'
set label 2 'chance (majority class)' at graph 0.01, first 70.017 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle

unset output
set terminal pngcairo size 1100,650 noenhanced font 'Helvetica,11' background rgb 'white'
set output 'chart-text.png'
set title "Text on this CPU (preset full)"
set xlabel "training steps/s at 4096 tokens (attnzoo bench, batch 2, 2 layer(s), dim 128), log scale"
set ylabel "test accuracy (%): Text"
set grid
set key outside right top title "family (bubble area: peak memory at 4K)"
set logscale x
set xrange [0.232889:0.75456]
set yrange [67.017:92.7785]
set xtics ("0.5" 0.5)
set label 1 "full" at 0.4192,89.7785 center offset char 0,2.31429 front
set arrow from graph 0, first 70.017 to graph 1, first 70.017 nohead dt 2 lc rgb '#888888'
set label 2 'chance (majority class)' at graph 0.01, first 70.017 offset 0,0.6 left textcolor rgb '#888888'
plot $f0 using 2:3:4 with points pt 7 ps variable lc rgb '#701f77b4' title "dense", $f0 using 2:3:4 with points pt 6 ps variable lw 1.5 lc rgb '#1f77b4' notitle

unset output
